;; hostile.wat: one operator whose misbehaviour is chosen by the first byte
;; of its config (the mode). Mode 0 is a well-behaved counter: per record it
;; reads state "n", adds one, writes it back and emits it to output "out".
;; Regenerate hostile.wasm with: go generate ./host/
(module
  (import "wasmstream" "record_next" (func $record_next (result i32)))
  (import "wasmstream" "state_get" (func $state_get (param i32 i32 i32 i32) (result i32)))
  (import "wasmstream" "state_put" (func $state_put (param i32 i32 i32 i32) (result i32)))
  (import "wasmstream" "state_delete" (func $state_delete (param i32 i32) (result i32)))
  (import "wasmstream" "emit" (func $emit (param i32 i32 i32 i32 i32 i32 i32 i32) (result i32)))
  (import "wasmstream" "log" (func $log (param i32 i32 i32)))
  (import "wasmstream" "event_time" (func $event_time (result i64)))
  (import "wasmstream" "processing_time" (func $processing_time (result i64)))
  (memory (export "memory") 16)
  (data (i32.const 16) "out")
  (data (i32.const 32) "n")
  (data (i32.const 48) "hello from the guest")
  (global $mode (mut i32) (i32.const 0))
  (global $bad i32 (i32.const -256))

  (func (export "ws_abi_version") (result i32) (i32.const 1))

  ;; One fixed buffer at 64 KiB; mode 12 returns a pointer outside memory,
  ;; mode 14 calls a host function from inside the allocator.
  (func (export "ws_alloc") (param $size i32) (result i32)
    (if (i32.eq (global.get $mode) (i32.const 12)) (then (return (global.get $bad))))
    (if (i32.eq (global.get $mode) (i32.const 14))
      (then (call $log (i32.const 2) (i32.const 48) (i32.const 5))))
    (if (i32.gt_u (local.get $size) (i32.const 983040)) (then (return (i32.const 0))))
    (i32.const 65536))

  (func (export "ws_init") (param $p i32) (param $l i32) (result i32)
    (if (i32.gt_u (local.get $l) (i32.const 0))
      (then (global.set $mode (i32.load8_u (local.get $p)))))
    (if (i32.eq (global.get $mode) (i32.const 33)) (then unreachable))
    (if (i32.eq (global.get $mode) (i32.const 11))
      (then (drop (call $emit (i32.const 16) (i32.const 3) (i32.const 0) (i32.const 0) (i32.const 0) (i32.const 0) (i32.const 0) (i32.const 0)))))
    (if (i32.eq (global.get $mode) (i32.const 34)) (then (return (i32.const -100))))
    (i32.const 0))

  (func $count
    (if (i32.eq (call $state_get (i32.const 32) (i32.const 1) (i32.const 256) (i32.const 8)) (i32.const -1))
      (then (i64.store (i32.const 256) (i64.const 0))))
    (i64.store (i32.const 256) (i64.add (i64.load (i32.const 256)) (i64.const 1)))
    (drop (call $state_put (i32.const 32) (i32.const 1) (i32.const 256) (i32.const 8)))
    (drop (call $emit (i32.const 16) (i32.const 3) (i32.const 0) (i32.const 0) (i32.const 256) (i32.const 8) (i32.const 0) (i32.const 0))))

  ;; misbehave runs before the record's normal work; $i is the record index.
  (func $misbehave (param $i i32) (result i32)
    (local $m i32)
    (local.set $m (global.get $mode))
    (if (i32.eq (local.get $m) (i32.const 1)) (then (drop (call $state_get (global.get $bad) (i32.const 16) (i32.const 256) (i32.const 8)))))
    (if (i32.eq (local.get $m) (i32.const 2)) (then (drop (call $state_get (i32.const 32) (i32.const 1) (global.get $bad) (i32.const 8)))))
    (if (i32.eq (local.get $m) (i32.const 3)) (then (drop (call $state_put (i32.const 32) (i32.const 1) (global.get $bad) (i32.const 8)))))
    (if (i32.eq (local.get $m) (i32.const 4)) (then (drop (call $state_delete (global.get $bad) (i32.const 1)))))
    (if (i32.eq (local.get $m) (i32.const 5)) (then (drop (call $emit (global.get $bad) (i32.const 3) (i32.const 0) (i32.const 0) (i32.const 0) (i32.const 0) (i32.const 0) (i32.const 0)))))
    (if (i32.eq (local.get $m) (i32.const 6)) (then (drop (call $emit (i32.const 16) (i32.const 3) (global.get $bad) (i32.const 8) (i32.const 0) (i32.const 0) (i32.const 0) (i32.const 0)))))
    (if (i32.eq (local.get $m) (i32.const 7)) (then (drop (call $emit (i32.const 16) (i32.const 3) (i32.const 0) (i32.const 0) (global.get $bad) (i32.const 8) (i32.const 0) (i32.const 0)))))
    (if (i32.eq (local.get $m) (i32.const 8)) (then (drop (call $emit (i32.const 16) (i32.const 3) (i32.const 0) (i32.const 0) (i32.const 0) (i32.const 0) (global.get $bad) (i32.const 8)))))
    (if (i32.eq (local.get $m) (i32.const 9)) (then (call $log (i32.const 2) (global.get $bad) (i32.const 8))))
    ;; 13: a negative length (0xffffffff) to state_put: over the value limit.
    (if (i32.eq (local.get $m) (i32.const 13)) (then (return (call $state_put (i32.const 32) (i32.const 1) (i32.const 256) (i32.const -1)))))
    ;; 15: a length that runs past the end of memory.
    (if (i32.eq (local.get $m) (i32.const 15)) (then (drop (call $state_put (i32.const 32) (i32.const 1) (i32.const 1048000) (i32.const 1000)))))
    ;; 16: emit to an output the pipeline does not wire.
    (if (i32.eq (local.get $m) (i32.const 16)) (then (return (call $emit (i32.const 32) (i32.const 1) (i32.const 0) (i32.const 0) (i32.const 0) (i32.const 0) (i32.const 0) (i32.const 0)))))
    ;; 17: malformed header list.
    (if (i32.eq (local.get $m) (i32.const 17)) (then (return (call $emit (i32.const 16) (i32.const 3) (i32.const 0) (i32.const 0) (i32.const 0) (i32.const 0) (i32.const 48) (i32.const 3)))))
    ;; 20: trap on record 2 after records 0 and 1 wrote state.
    (if (i32.and (i32.eq (local.get $m) (i32.const 20)) (i32.eq (local.get $i) (i32.const 2))) (then unreachable))
    ;; 21: report record 1 as failed.
    (if (i32.and (i32.eq (local.get $m) (i32.const 21)) (i32.eq (local.get $i) (i32.const 1))) (then (return (i32.const -101))))
    (if (i32.eq (local.get $m) (i32.const 30)) (then (loop $forever (br $forever))))
    (if (i32.eq (local.get $m) (i32.const 31))
      (then (loop $bomb (br_if $bomb (i32.ne (memory.grow (i32.const 16)) (i32.const -1)))) unreachable))
    (if (i32.eq (local.get $m) (i32.const 32)) (then unreachable))
    (if (i32.eq (local.get $m) (i32.const 35)) (then (call $log (i32.const 2) (i32.const 48) (i32.const 20))))
    (i32.const 0))

  (func (export "ws_process") (param $p i32) (param $l i32) (result i32)
    (local $i i32)
    (local $rc i32)
    ;; 36: return success without visiting the records.
    (if (i32.eq (global.get $mode) (i32.const 36)) (then (return (i32.const 0))))
    (if (i32.eq (global.get $mode) (i32.const 10))
      (then (drop (call $state_get (i32.const 32) (i32.const 1) (i32.const 256) (i32.const 8)))))
    (block $done
      (loop $next
        (br_if $done (i32.eqz (call $record_next)))
        (local.set $rc (call $misbehave (local.get $i)))
        (if (i32.lt_s (local.get $rc) (i32.const 0)) (then (return (local.get $rc))))
        (call $count)
        (local.set $i (i32.add (local.get $i) (i32.const 1)))
        (br $next)))
    ;; 18: a state call after record_next reported the end.
    (if (i32.eq (global.get $mode) (i32.const 18))
      (then (drop (call $state_delete (i32.const 32) (i32.const 1)))))
    (i32.const 0))
)
