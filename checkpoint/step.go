package checkpoint

// Step names a point inside WriteWithHook, in the order they are reached.
// A crash at any step must leave either no checkpoint of that id or a
// complete one.
type Step string

const (
	// StepStateCopied: the Pebble checkpoint is in the temporary directory;
	// no manifest yet.
	StepStateCopied Step = "state-copied"
	// StepManifestTemp: the manifest's temporary file is written and fsynced, not yet
	// renamed.
	StepManifestTemp Step = "manifest-temp"
	// StepManifestWritten: MANIFEST.json is in place inside the temporary
	// directory, which is not yet renamed.
	StepManifestWritten Step = "manifest-written"
	// StepRenamed: the directory has its final name; the root is not yet
	// fsynced.
	StepRenamed Step = "renamed"
)

// Steps lists every Step in order.
var Steps = []Step{StepStateCopied, StepManifestTemp, StepManifestWritten, StepRenamed}
