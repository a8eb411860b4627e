;; infinite_loop: loops forever on the first record
;; The per-call deadline (limits.batch_timeout) stops it.
(module
  (import "wasmstream" "record_next" (func $record_next (result i32)))
  (memory (export "memory") 1)
  (data (i32.const 16) "out")
  (data (i32.const 32) "n")
  (func (export "ws_abi_version") (result i32) (i32.const 1))
  (func (export "ws_alloc") (param $size i32) (result i32)
    (i32.const 1024))
  (func (export "ws_init") (param $ptr i32) (param $len i32) (result i32)
    (i32.const 0))
  (func (export "ws_process") (param $ptr i32) (param $len i32) (result i32)
    (drop (call $record_next))
    (loop $forever (br $forever))
    (i32.const 0))
)
