;; state_put_in_init: ws_init writes state
;; State is scoped to the current record; ws_init has none.
(module
  (import "wasmstream" "state_put" (func $state_put (param i32 i32 i32 i32) (result i32)))
  (memory (export "memory") 1)
  (data (i32.const 16) "out")
  (data (i32.const 32) "n")
  (func (export "ws_abi_version") (result i32) (i32.const 1))
  (func (export "ws_alloc") (param $size i32) (result i32)
    (i32.const 1024))
  (func (export "ws_init") (param $ptr i32) (param $len i32) (result i32)
    (drop (call $state_put (i32.const 32) (i32.const 1) (i32.const 256) (i32.const 8))) unreachable)
  (func (export "ws_process") (param $ptr i32) (param $len i32) (result i32)
    (i32.const 0))
)
