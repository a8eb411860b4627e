// Package config reads the pipeline config file: one HCL file that names the pipeline, the NATS
// server, the JetStream streams to ensure, the sources, the operators (WebAssembly modules) and
// the sinks.
//
// Load and Parse decode the file, fill in defaults, resolve paths against the file's directory and
// cross-check the references between blocks. Every problem is reported at once, each as a
// Diagnostic at "file:line:col" with a message that names the object and says the fix. Warnings
// (a setting that is legal but probably not what the user wants) come back in the same list
// without failing the load.
//
// The format is documented, with a full example, in docs/config.md.
package config
