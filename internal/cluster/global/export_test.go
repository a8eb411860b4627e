package global

import "time"

// SetStoreAttemptTimeout shortens the deadline of one Object Store
// attempt for a test, until it ends.
func SetStoreAttemptTimeout(t interface{ Cleanup(func()) }, d time.Duration) {
	old := storeAttemptTimeout
	storeAttemptTimeout = d
	t.Cleanup(func() { storeAttemptTimeout = old })
}
