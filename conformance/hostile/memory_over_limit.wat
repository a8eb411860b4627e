;; memory_over_limit: a memory whose minimum (100 pages) exceeds the runtime's limit (64 pages in the test)
;; A declared minimum over limits.memory_pages cannot be lowered: the module does not load.
(module
  (memory (export "memory") 100)
  (data (i32.const 16) "out")
  (data (i32.const 32) "n")
  (func (export "ws_abi_version") (result i32) (i32.const 1))
  (func (export "ws_alloc") (param $size i32) (result i32)
    (i32.const 1024))
  (func (export "ws_init") (param $ptr i32) (param $len i32) (result i32)
    (i32.const 0))
  (func (export "ws_process") (param $ptr i32) (param $len i32) (result i32)
    (i32.const 0))
)
