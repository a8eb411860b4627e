;; state_get_name_bad_pointer: state_get with a name pointer outside memory
;; The name range starts at 0xffffff00 (an unsigned pointer) in a one-page memory.
;; BAD_POINTER is fatal: the host aborts the call; were it to return, unreachable traps.
(module
  (import "wasmstream" "record_next" (func $record_next (result i32)))
  (import "wasmstream" "state_get" (func $state_get (param i32 i32 i32 i32) (result i32)))
  (memory (export "memory") 1)
  (data (i32.const 16) "out")
  (data (i32.const 32) "n")
  (func (export "ws_abi_version") (result i32) (i32.const 1))
  (func (export "ws_alloc") (param $size i32) (result i32)
    (i32.const 1024))
  (func (export "ws_init") (param $ptr i32) (param $len i32) (result i32)
    (i32.const 0))
  (func (export "ws_process") (param $ptr i32) (param $len i32) (result i32)
    (drop (call $record_next))
    (drop (call $state_get (i32.const -256) (i32.const 1) (i32.const 256) (i32.const 8)))
    unreachable)
)
