;; imported_memory: imports its memory instead of defining it
;; A guest must define and export its own memory.
(module
  (import "env" "memory" (memory 1))
  (export "memory" (memory 0))
  (func (export "ws_abi_version") (result i32) (i32.const 1))
  (func (export "ws_alloc") (param $size i32) (result i32)
    (i32.const 1024))
  (func (export "ws_init") (param $ptr i32) (param $len i32) (result i32)
    (i32.const 0))
  (func (export "ws_process") (param $ptr i32) (param $len i32) (result i32)
    (i32.const 0))
)
