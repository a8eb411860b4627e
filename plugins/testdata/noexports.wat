;; noexports.wat: ws_process is missing and ws_init has the wrong signature.
(module
  (memory (export "memory") 1)
  (func (export "ws_abi_version") (result i32) (i32.const 1))
  (func (export "ws_alloc") (param i32) (result i32) (i32.const 1024))
  (func (export "ws_init") (param i32) (result i32) (i32.const 0)))
