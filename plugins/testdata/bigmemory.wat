;; bigmemory.wat: asks for 600 pages (37.5 MiB) up front, over the default
;; limit of 512 pages.
(module
  (memory (export "memory") 600)
  (func (export "ws_abi_version") (result i32) (i32.const 1))
  (func (export "ws_alloc") (param i32) (result i32) (i32.const 1024))
  (func (export "ws_init") (param i32 i32) (result i32) (i32.const 0))
  (func (export "ws_process") (param i32 i32) (result i32) (i32.const 0)))
