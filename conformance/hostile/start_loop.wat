;; start_loop: the start function never returns
;; The start section runs when the module is instantiated for the version check, under
;; RuntimeConfig.ValidationTimeout: the load times out instead of hanging the host.
(module
  (memory (export "memory") 1)
  (data (i32.const 16) "out")
  (data (i32.const 32) "n")
  (func $start (loop $forever (br $forever)))
  (start $start)
  (func (export "ws_abi_version") (result i32) (i32.const 1))
  (func (export "ws_alloc") (param $size i32) (result i32)
    (i32.const 1024))
  (func (export "ws_init") (param $ptr i32) (param $len i32) (result i32)
    (i32.const 0))
  (func (export "ws_process") (param $ptr i32) (param $len i32) (result i32)
    (i32.const 0))
)
