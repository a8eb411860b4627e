;; emit_batch_bad_length: emit_batch (revision 1.3) with a list length running past memory
;; The range [512, 512 + 0xffffffff) is outside memory: the fatal BAD_POINTER.
(module
  (import "wasmstream" "record_next" (func $record_next (result i32)))
  (import "wasmstream" "emit_batch" (func $emit_batch (param i32 i32) (result i32)))
  (memory (export "memory") 1)
  (func (export "ws_abi_version") (result i32) (i32.const 1))
  (func (export "ws_alloc") (param $size i32) (result i32)
    (i32.const 1024))
  (func (export "ws_init") (param $ptr i32) (param $len i32) (result i32)

    (i32.const 0))
  (func (export "ws_process") (param $ptr i32) (param $len i32) (result i32)
    (drop (call $record_next))
    (drop (call $emit_batch (i32.const 512) (i32.const -1)))
    (i32.const 0))
)
