;; emit_batch_bad_pointer: emit_batch (revision 1.3) with a list pointer outside memory
;; A range outside guest memory is the fatal BAD_POINTER.
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
    (drop (call $emit_batch (i32.const -256) (i32.const 8)))
    (i32.const 0))
)
