;; b1steps.wat: the B1 operator (per record: state_get, state_put, emit of
;; state "n", as hostile.wat's mode 0) cut into steps, to measure what each
;; host call adds per record (internal/bench BenchmarkB1Steps). The first
;; config byte is the number of steps done per record:
;;   1: record_next only          3: + state_put of the incremented count
;;   2: + state_get               4: + emit to "out" (the whole B1 operator)
;; Regenerate b1steps.wasm with: go generate ./host/
(module
  (import "wasmstream" "record_next" (func $record_next (result i32)))
  (import "wasmstream" "state_get" (func $state_get (param i32 i32 i32 i32) (result i32)))
  (import "wasmstream" "state_put" (func $state_put (param i32 i32 i32 i32) (result i32)))
  (import "wasmstream" "emit" (func $emit (param i32 i32 i32 i32 i32 i32 i32 i32) (result i32)))
  (memory (export "memory") 16)
  (data (i32.const 16) "out")
  (data (i32.const 32) "n")
  (global $steps (mut i32) (i32.const 4))

  (func (export "ws_abi_version") (result i32) (i32.const 1))

  ;; One fixed buffer at 64 KiB.
  (func (export "ws_alloc") (param $size i32) (result i32)
    (if (i32.gt_u (local.get $size) (i32.const 983040)) (then (return (i32.const 0))))
    (i32.const 65536))

  (func (export "ws_init") (param $p i32) (param $l i32) (result i32)
    (if (i32.gt_u (local.get $l) (i32.const 0))
      (then (global.set $steps (i32.load8_u (local.get $p)))))
    (i32.const 0))

  (func (export "ws_process") (param $p i32) (param $l i32) (result i32)
    (block $done
      (loop $next
        (br_if $done (i32.eqz (call $record_next)))
        (if (i32.ge_u (global.get $steps) (i32.const 2))
          (then
            (if (i32.eq (call $state_get (i32.const 32) (i32.const 1) (i32.const 256) (i32.const 8)) (i32.const -1))
              (then (i64.store (i32.const 256) (i64.const 0))))))
        (if (i32.ge_u (global.get $steps) (i32.const 3))
          (then
            (i64.store (i32.const 256) (i64.add (i64.load (i32.const 256)) (i64.const 1)))
            (drop (call $state_put (i32.const 32) (i32.const 1) (i32.const 256) (i32.const 8)))))
        (if (i32.ge_u (global.get $steps) (i32.const 4))
          (then
            (drop (call $emit (i32.const 16) (i32.const 3) (i32.const 0) (i32.const 0) (i32.const 256) (i32.const 8) (i32.const 0) (i32.const 0)))))
        (br $next)))
    (i32.const 0))
)
