;; too_many_emits: emits 64 records for records 0 and 1, then 65 for record 2
;; The quota (limits.max_emits_per_record, 64 by default) is per record: records 0 and 1 stay
;; within it; the 65th emit of record 2 returns QUOTA_EXCEEDED, which the guest returns.
(module
  (import "wasmstream" "record_next" (func $record_next (result i32)))
  (import "wasmstream" "emit" (func $emit (param i32 i32 i32 i32 i32 i32 i32 i32) (result i32)))
  (memory (export "memory") 1)
  (data (i32.const 16) "out")
  (data (i32.const 32) "n")
  ;; emit_n emits n empty records to "out"; it returns the first non-zero result.
  (func $emit_n (param $n i32) (result i32)
    (local $rc i32)
    (block $done
      (loop $again
        (br_if $done (i32.eqz (local.get $n)))
        (local.set $rc (call $emit (i32.const 16) (i32.const 3) (i32.const 0) (i32.const 0) (i32.const 0) (i32.const 0) (i32.const 0) (i32.const 0)))
        (if (local.get $rc) (then (return (local.get $rc))))
        (local.set $n (i32.sub (local.get $n) (i32.const 1)))
        (br $again)))
    (i32.const 0))
  (func (export "ws_abi_version") (result i32) (i32.const 1))
  (func (export "ws_alloc") (param $size i32) (result i32)
    (i32.const 1024))
  (func (export "ws_init") (param $ptr i32) (param $len i32) (result i32)
    (i32.const 0))
  (func (export "ws_process") (param $ptr i32) (param $len i32) (result i32)
    (local $rc i32)
    (drop (call $record_next))
    (local.set $rc (call $emit_n (i32.const 64)))
    (if (local.get $rc) (then (return (local.get $rc))))
    (drop (call $record_next))
    (local.set $rc (call $emit_n (i32.const 64)))
    (if (local.get $rc) (then (return (local.get $rc))))
    (drop (call $record_next))
    (call $emit_n (i32.const 65)))
)
