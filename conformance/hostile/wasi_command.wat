;; wasi_command: a WASI command module (exports _start, no _initialize)
;; What Go makes without -buildmode=c-shared: its exports trap until _start
;; has run, and the host never runs _start. The load refuses it by its
;; exports, before the version check would trap.
(module
  (memory (export "memory") 1)
  (func (export "_start"))
  (func (export "ws_abi_version") (result i32) unreachable)
  (func (export "ws_alloc") (param $size i32) (result i32) unreachable)
  (func (export "ws_init") (param $ptr i32) (param $len i32) (result i32) unreachable)
  (func (export "ws_process") (param $ptr i32) (param $len i32) (result i32) unreachable)
)
