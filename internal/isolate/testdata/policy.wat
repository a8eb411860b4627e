;; policy.wat: a guest for the batch-failure policy's tests. The first byte
;; of each record's value chooses what the record does:
;;   o  emit the value to output "out" under the record's key
;;   e  fail the record: ws_process returns GUEST_RECORD (-101), the
;;      instance is kept
;;   t  trap while the record is current: the instance is discarded
;;   x  emit like o, but trap after the last record, when no record is
;;      current (a fault outside any record); not when the config is
;;      not empty (a "calm" instance)
;; Regenerate policy.wasm with: go generate ./internal/isolate/
(module
  (import "wasmstream" "record_next" (func $record_next (result i32)))
  (import "wasmstream" "emit" (func $emit (param i32 i32 i32 i32 i32 i32 i32 i32) (result i32)))
  (memory (export "memory") 1)
  (data (i32.const 16) "out")
  (global $calm (mut i32) (i32.const 0))

  (func (export "ws_abi_version") (result i32) (i32.const 1))

  ;; One fixed buffer at 1 KiB for the config and every batch.
  (func (export "ws_alloc") (param $size i32) (result i32)
    (i32.const 1024))

  (func (export "ws_init") (param $ptr i32) (param $len i32) (result i32)
    (global.set $calm (i32.ne (local.get $len) (i32.const 0)))
    (i32.const 0))

  ;; Walks the batch (abi/ABI.md §5.1) beside record_next: $rec is the
  ;; offset of the current record.
  (func (export "ws_process") (param $ptr i32) (param $len i32) (result i32)
    (local $rec i32) (local $klen i32) (local $val i32) (local $vlen i32) (local $c i32) (local $outside i32)
    (local.set $rec (i32.add (local.get $ptr) (i32.const 4)))
    (block $done
      (loop $next
        (br_if $done (i32.eqz (call $record_next)))
        (local.set $klen (i32.load (i32.add (local.get $rec) (i32.const 12))))
        (local.set $vlen (i32.load (i32.add (i32.add (local.get $rec) (i32.const 16)) (local.get $klen))))
        (local.set $val (i32.add (i32.add (local.get $rec) (i32.const 20)) (local.get $klen)))
        (local.set $c (i32.const 0))
        (if (local.get $vlen) (then (local.set $c (i32.load8_u (local.get $val)))))
        (if (i32.eq (local.get $c) (i32.const 101)) (then (return (i32.const -101)))) ;; e
        (if (i32.eq (local.get $c) (i32.const 116)) (then unreachable))              ;; t
        (if (i32.and (i32.eq (local.get $c) (i32.const 120)) (i32.eqz (global.get $calm)))
          (then (local.set $outside (i32.const 1))))                                 ;; x
        (drop (call $emit (i32.const 16) (i32.const 3)
          (i32.add (local.get $rec) (i32.const 16)) (local.get $klen)
          (local.get $val) (local.get $vlen) (i32.const 0) (i32.const 0)))
        ;; next record: value, then the headers' length and bytes
        (local.set $rec (i32.add (i32.add (local.get $val) (local.get $vlen))
          (i32.add (i32.const 4) (i32.load (i32.add (local.get $val) (local.get $vlen))))))
        (br $next)))
    (if (local.get $outside) (then unreachable))
    (i32.const 0))
)
