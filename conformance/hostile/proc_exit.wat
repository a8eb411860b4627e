;; proc_exit: calls WASI proc_exit(0) in the middle of a batch
;; Exiting is a trap even with status 0: the batch did not finish.
(module
  (import "wasmstream" "record_next" (func $record_next (result i32)))
  (import "wasi_snapshot_preview1" "proc_exit" (func $proc_exit (param i32)))
  (memory (export "memory") 1)
  (data (i32.const 16) "out")
  (data (i32.const 32) "n")
  (func (export "ws_abi_version") (result i32) (i32.const 1))
  (func (export "ws_alloc") (param $size i32) (result i32)
    (i32.const 1024))
  (func (export "ws_init") (param $ptr i32) (param $len i32) (result i32)
    (i32.const 0))
  (func (export "ws_process") (param $ptr i32) (param $len i32) (result i32)
    (drop (call $record_next))
    (call $proc_exit (i32.const 0))
    (i32.const 0))
)
