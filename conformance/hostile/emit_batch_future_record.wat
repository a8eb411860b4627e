;; emit_batch_future_record: an emit list entry names a record the guest has not reached
;; At record 0 the entry names record 2: emit_batch returns BAD_ARGUMENT and adds nothing.
;; The guest returns the code from ws_process, which fails the batch as a trap.
(module
  (import "wasmstream" "record_next" (func $record_next (result i32)))
  (import "wasmstream" "emit_batch" (func $emit_batch (param i32 i32) (result i32)))
  (memory (export "memory") 1)
  ;; one entry: record 2, output 0, empty key, value and headers (20 bytes)
  (data (i32.const 512) "\02\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00")
  (func (export "ws_abi_version") (result i32) (i32.const 1))
  (func (export "ws_alloc") (param $size i32) (result i32)
    (i32.const 1024))
  (func (export "ws_init") (param $ptr i32) (param $len i32) (result i32)
    (i32.const 0))
  (func (export "ws_process") (param $ptr i32) (param $len i32) (result i32)
    (drop (call $record_next))
    (call $emit_batch (i32.const 512) (i32.const 20)))
)
