;; emit_key_too_large: emit of a key one byte over the 1 MiB limit
;; The key lies inside memory (32 pages); its length is over limits.max_value_bytes: TOO_LARGE.
;; The guest returns the code from ws_process, which fails the batch as a trap.
(module
  (import "wasmstream" "record_next" (func $record_next (result i32)))
  (import "wasmstream" "emit" (func $emit (param i32 i32 i32 i32 i32 i32 i32 i32) (result i32)))
  (memory (export "memory") 32)
  (data (i32.const 16) "out")
  (data (i32.const 32) "n")
  (func (export "ws_abi_version") (result i32) (i32.const 1))
  (func (export "ws_alloc") (param $size i32) (result i32)
    (i32.const 1024))
  (func (export "ws_init") (param $ptr i32) (param $len i32) (result i32)
    (i32.const 0))
  (func (export "ws_process") (param $ptr i32) (param $len i32) (result i32)
    (drop (call $record_next))
    (return (call $emit (i32.const 16) (i32.const 3) (i32.const 65536) (i32.const 1048577) (i32.const 0) (i32.const 0) (i32.const 0) (i32.const 0))))
)
