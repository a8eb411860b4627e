;; start_host_call: the start function calls a host function
;; No host-driven call is in progress during the start section: the call is refused
;; (REENTRANT) and the instantiation for the version check fails.
(module
  (import "wasmstream" "log" (func $log (param i32 i32 i32)))
  (memory (export "memory") 1)
  (data (i32.const 16) "out")
  (data (i32.const 32) "n")
  (func $start (call $log (i32.const 2) (i32.const 16) (i32.const 3)))
  (start $start)
  (func (export "ws_abi_version") (result i32) (i32.const 1))
  (func (export "ws_alloc") (param $size i32) (result i32)
    (i32.const 1024))
  (func (export "ws_init") (param $ptr i32) (param $len i32) (result i32)
    (i32.const 0))
  (func (export "ws_process") (param $ptr i32) (param $len i32) (result i32)
    (i32.const 0))
)
