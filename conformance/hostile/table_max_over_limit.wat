;; table_max_over_limit: a table whose declared maximum (2^27 elements) is over limits.max_table_elements
;; wazero would let table.grow reach the declared maximum (1 GiB in the host): the module does not load.
(module
  (memory (export "memory") 1)
  (table 1 134217728 funcref)
  (func (export "ws_abi_version") (result i32) (i32.const 1))
  (func (export "ws_alloc") (param $size i32) (result i32)
    (i32.const 1024))
  (func (export "ws_init") (param $ptr i32) (param $len i32) (result i32)
    (i32.const 0))
  (func (export "ws_process") (param $ptr i32) (param $len i32) (result i32)
    (i32.const 0))
)
