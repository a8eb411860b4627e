;; state_put_negative_length: state_put with value length -1
;; Lengths are unsigned: -1 is 4294967295, over limits.max_value_bytes, so TOO_LARGE is returned.
;; The guest returns the code from ws_process, which fails the batch as a trap.
(module
  (import "wasmstream" "record_next" (func $record_next (result i32)))
  (import "wasmstream" "state_put" (func $state_put (param i32 i32 i32 i32) (result i32)))
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
    (return (call $state_put (i32.const 32) (i32.const 1) (i32.const 256) (i32.const -1))))
)
