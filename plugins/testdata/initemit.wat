;; initemit.wat: a module that passes every static check and starts, but
;; whose ws_init emits a record: there is no current record in ws_init, so
;; the host faults it (NO_RECORD) and `wasmstream validate` refuses it.
(module
  (import "wasmstream" "emit" (func $emit (param i32 i32 i32 i32 i32 i32 i32 i32) (result i32)))
  (memory (export "memory") 1)
  (data (i32.const 16) "out")
  (func (export "ws_abi_version") (result i32) (i32.const 1))
  (func (export "ws_alloc") (param i32) (result i32) (i32.const 1024))
  (func (export "ws_init") (param i32 i32) (result i32)
    (drop (call $emit (i32.const 16) (i32.const 3) (i32.const 0) (i32.const 0) (i32.const 0) (i32.const 0) (i32.const 0) (i32.const 0)))
    (i32.const 0))
  (func (export "ws_process") (param i32 i32) (result i32) (i32.const 0)))
