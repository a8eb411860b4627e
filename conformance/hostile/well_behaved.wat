;; well_behaved: the control module. Per record it adds one to state "n" of the
;; record's key and emits the new count (i64le) to "out". After every hostile
;; module, the same runtime must still run it: the host lives on.
(module
  (import "wasmstream" "record_next" (func $record_next (result i32)))
  (import "wasmstream" "state_get" (func $state_get (param i32 i32 i32 i32) (result i32)))
  (import "wasmstream" "state_put" (func $state_put (param i32 i32 i32 i32) (result i32)))
  (import "wasmstream" "emit" (func $emit (param i32 i32 i32 i32 i32 i32 i32 i32) (result i32)))
  (memory (export "memory") 1)
  (data (i32.const 16) "out")
  (data (i32.const 32) "n")
  (func (export "ws_abi_version") (result i32) (i32.const 1))
  (func (export "ws_alloc") (param $size i32) (result i32) (i32.const 1024))
  (func (export "ws_init") (param $ptr i32) (param $len i32) (result i32) (i32.const 0))
  (func (export "ws_process") (param $ptr i32) (param $len i32) (result i32)
    (block $done
      (loop $next
        (br_if $done (i32.eqz (call $record_next)))
        ;; n = state "n" (absent: 0) + 1, kept at 256
        (if (i32.eq (call $state_get (i32.const 32) (i32.const 1) (i32.const 256) (i32.const 8)) (i32.const -1))
          (then (i64.store (i32.const 256) (i64.const 0))))
        (i64.store (i32.const 256) (i64.add (i64.load (i32.const 256)) (i64.const 1)))
        (if (call $state_put (i32.const 32) (i32.const 1) (i32.const 256) (i32.const 8)) (then unreachable))
        (if (call $emit (i32.const 16) (i32.const 3) (i32.const 0) (i32.const 0) (i32.const 256) (i32.const 8) (i32.const 0) (i32.const 0))
          (then unreachable))
        (br $next)))
    (i32.const 0))
)
