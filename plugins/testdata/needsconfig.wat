;; needsconfig.wat: a module whose ws_init rejects an empty config
;; (GUEST_CONFIG, -100) and accepts any other.
(module
  (memory (export "memory") 1)
  (func (export "ws_abi_version") (result i32) (i32.const 1))
  (func (export "ws_alloc") (param i32) (result i32) (i32.const 1024))
  (func (export "ws_init") (param $p i32) (param $l i32) (result i32)
    (if (i32.eqz (local.get $l)) (then (return (i32.const -100))))
    (i32.const 0))
  (func (export "ws_process") (param i32 i32) (result i32) (i32.const 0)))
