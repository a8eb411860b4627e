;; abi_version_trap: ws_abi_version traps
;; The version check runs guest code at load time; its trap fails the load.
(module
  (memory (export "memory") 1)
  (data (i32.const 16) "out")
  (data (i32.const 32) "n")
  (func (export "ws_abi_version") (result i32) unreachable)
  (func (export "ws_alloc") (param $size i32) (result i32) (i32.const 1024))
  (func (export "ws_init") (param $ptr i32) (param $len i32) (result i32) (i32.const 0))
  (func (export "ws_process") (param $ptr i32) (param $len i32) (result i32) (i32.const 0))
)
