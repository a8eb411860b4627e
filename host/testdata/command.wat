;; command.wat: a WASI command module, as `GOOS=wasip1 GOARCH=wasm go build`
;; makes it without -buildmode=c-shared: it exports _start and no
;; _initialize, and its exports trap until _start has run main (a Go
;; module's runtime is not initialised before).
(module
  (memory (export "memory") 1)
  (func (export "_start"))
  (func (export "ws_abi_version") (result i32) (unreachable))
  (func (export "ws_alloc") (param i32) (result i32) (unreachable))
  (func (export "ws_init") (param i32 i32) (result i32) (unreachable))
  (func (export "ws_process") (param i32 i32) (result i32) (unreachable)))
