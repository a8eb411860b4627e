;; state_before_record_next: ws_process reads state before the first record_next
;; No record is current yet: NO_RECORD is fatal, and no record is blamed.
(module
  (import "wasmstream" "record_next" (func $record_next (result i32)))
  (import "wasmstream" "state_get" (func $state_get (param i32 i32 i32 i32) (result i32)))
  (memory (export "memory") 1)
  (data (i32.const 16) "out")
  (data (i32.const 32) "n")
  (func (export "ws_abi_version") (result i32) (i32.const 1))
  (func (export "ws_alloc") (param $size i32) (result i32)
    (i32.const 1024))
  (func (export "ws_init") (param $ptr i32) (param $len i32) (result i32)
    (i32.const 0))
  (func (export "ws_process") (param $ptr i32) (param $len i32) (result i32)
    (drop (call $state_get (i32.const 32) (i32.const 1) (i32.const 256) (i32.const 8)))
    unreachable)
)
