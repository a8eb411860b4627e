package global

import "fmt"

// The objects of cluster checkpoint N, written by the coordinator of
// generation G (design §5.3): everything of one attempt lives under
// ckpt/<N>-g<G>/, so two coordinators never write one name, and a
// worker's objects carry its assignment epoch A, so a zombie's never
// replace a current worker's.

// ManifestObject is the global manifest of checkpoint n of generation gen.
func ManifestObject(n, gen uint64) string {
	return fmt.Sprintf("%sMANIFEST.json", prefix(n, gen))
}

// AckObject is the ack (worker manifest) of worker for checkpoint n of
// generation gen under assignment epoch.
func AckObject(n, gen, epoch uint64, worker string) string {
	return fmt.Sprintf("%sw-%s-a%d.json", prefix(n, gen), worker, epoch)
}

// TaskObject is the task manifest of the task of operator starting at key
// group start, uploaded by worker (ship.Shipper.Upload's manifestObject).
func TaskObject(n, gen, epoch uint64, worker, operator string, start int) string {
	return fmt.Sprintf("%sw-%s-a%d/%s-%d.json", prefix(n, gen), worker, epoch, operator, start)
}

func prefix(n, gen uint64) string { return fmt.Sprintf("ckpt/%d-g%d/", n, gen) }
