;; good.wat: the smallest valid operator: ABI v1, every required export, two
;; host functions imported, memory of 2 pages growing to at most 16.
(module
  (import "wasmstream" "record_next" (func $next (result i32)))
  (import "wasmstream" "state_get" (func $get (param i32 i32 i32 i32) (result i32)))
  (memory (export "memory") 2 16)
  (func (export "ws_abi_version") (result i32) (i32.const 1))
  (func (export "ws_alloc") (param i32) (result i32) (i32.const 1024))
  (func (export "ws_init") (param i32 i32) (result i32) (i32.const 0))
  (func (export "ws_process") (param i32 i32) (result i32)
    (block $done (loop $each (br_if $done (i32.eqz (call $next))) (br $each)))
    (i32.const 0)))
