;; trap_in_process: writes state and emits on record 0, traps on record 1
;; The trap discards the whole batch: the state write and the emit of record 0 are rolled back.
(module
  (import "wasmstream" "record_next" (func $record_next (result i32)))
  (import "wasmstream" "state_put" (func $state_put (param i32 i32 i32 i32) (result i32)))
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
    ;; record 0: a state write and an emit, both rolled back by the trap
    (drop (call $record_next))
    (drop (call $state_put (i32.const 32) (i32.const 1) (i32.const 256) (i32.const 8)))
    (drop (call $emit (i32.const 16) (i32.const 3) (i32.const 0) (i32.const 0) (i32.const 256) (i32.const 8) (i32.const 0) (i32.const 0)))
    ;; record 1: trap
    (drop (call $record_next))
    unreachable)
)
