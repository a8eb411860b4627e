;; wat2wasm-flags: --no-check
;; invalid_function_body: a function whose body does not type-check
;; wat2wasm emits it with --no-check; wazero refuses to compile it.
(module
  (memory (export "memory") 1)
  (data (i32.const 16) "out")
  (data (i32.const 32) "n")
  (func (export "ws_abi_version") (result i32) (i64.const 1))
  (func (export "ws_alloc") (param $size i32) (result i32) (i32.const 1024))
  (func (export "ws_init") (param $ptr i32) (param $len i32) (result i32) (i32.const 0))
  (func (export "ws_process") (param $ptr i32) (param $len i32) (result i32) (i32.const 0))
)
