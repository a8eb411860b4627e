;; unknown_import: imports wasmstream.state_scan, which ABI v1 does not have
;; Only the host functions of abi/ABI.md section 6 may be imported.
(module
  (import "wasmstream" "state_scan" (func $state_scan (param i32 i32) (result i32)))
  (memory (export "memory") 1)
  (data (i32.const 16) "out")
  (data (i32.const 32) "n")
  (func (export "ws_abi_version") (result i32) (i32.const 1))
  (func (export "ws_alloc") (param $size i32) (result i32)
    (i32.const 1024))
  (func (export "ws_init") (param $ptr i32) (param $len i32) (result i32)
    (i32.const 0))
  (func (export "ws_process") (param $ptr i32) (param $len i32) (result i32)
    (i32.const 0))
)
