;; badimport.wat: imports a host function that does not exist.
(module
  (import "wasmstream" "state_scan" (func (param i32) (result i32)))
  (memory (export "memory") 1)
  (func (export "ws_abi_version") (result i32) (i32.const 1))
  (func (export "ws_alloc") (param i32) (result i32) (i32.const 1024))
  (func (export "ws_init") (param i32 i32) (result i32) (i32.const 0))
  (func (export "ws_process") (param i32 i32) (result i32) (i32.const 0)))
