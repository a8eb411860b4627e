;; table_min_over_limit: a table without a maximum whose initial size (200,000) is over limits.max_table_elements
;; Every instance would allocate it: the module does not load.
(module
  (memory (export "memory") 1)
  (table 200000 funcref)
  (func (export "ws_abi_version") (result i32) (i32.const 1))
  (func (export "ws_alloc") (param $size i32) (result i32)
    (i32.const 1024))
  (func (export "ws_init") (param $ptr i32) (param $len i32) (result i32)
    (i32.const 0))
  (func (export "ws_process") (param $ptr i32) (param $len i32) (result i32)
    (i32.const 0))
)
