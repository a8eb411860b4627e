;; state_put_name_bad_length: state_put with a name length that runs past the end of memory
;; The name range [65280, 65792) ends past the one-page memory (65536 bytes).
;; BAD_POINTER is fatal: the host aborts the call; were it to return, unreachable traps.
(module
  (import "wasmstream" "record_next" (func $record_next (result i32)))
  (import "wasmstream" "state_put" (func $state_put (param i32 i32 i32 i32) (result i32)))
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
    (drop (call $state_put (i32.const 65280) (i32.const 512) (i32.const 256) (i32.const 8)))
    unreachable)
)
