;; emit_after_last_record: ws_process emits after record_next returned 0
;; The batch has ended, so no record is current: NO_RECORD is fatal.
(module
  (import "wasmstream" "record_next" (func $record_next (result i32)))
  (import "wasmstream" "emit" (func $emit (param i32 i32 i32 i32 i32 i32 i32 i32) (result i32)))
  (memory (export "memory") 1)
  (data (i32.const 16) "out")
  (data (i32.const 32) "n")
  (func (export "ws_abi_version") (result i32) (i32.const 1))
  (func (export "ws_alloc") (param $size i32) (result i32)
    (i32.const 1024))
  (func (export "ws_init") (param $ptr i32) (param $len i32) (result i32)
    (i32.const 0))
  (func (export "ws_process") (param $ptr i32) (param $len i32) (result i32)
    (block $done
      (loop $next
        (br_if $done (i32.eqz (call $record_next)))
        (br $next)))
    (drop (call $emit (i32.const 16) (i32.const 3) (i32.const 0) (i32.const 0) (i32.const 0) (i32.const 0) (i32.const 0) (i32.const 0)))
    unreachable)
)
