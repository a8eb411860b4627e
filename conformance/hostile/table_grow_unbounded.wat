;; table_grow_unbounded: a table without a maximum, grown by 2^28 elements (2 GiB in the host)
;; The host gives a table that declares no maximum (as Go's linker makes them) what
;; limits.max_table_elements leaves as its maximum, so table.grow returns -1 and the guest
;; traps instead of the host allocating.
(module
  (import "wasmstream" "record_next" (func $record_next (result i32)))
  (memory (export "memory") 1)
  (table 1 funcref)
  (func (export "ws_abi_version") (result i32) (i32.const 1))
  (func (export "ws_alloc") (param $size i32) (result i32)
    (i32.const 1024))
  (func (export "ws_init") (param $ptr i32) (param $len i32) (result i32)
    (i32.const 0))
  (func (export "ws_process") (param $ptr i32) (param $len i32) (result i32)
    (drop (call $record_next))
    (if (i32.eq (table.grow 0 (ref.null func) (i32.const 268435456)) (i32.const -1))
      (then unreachable))
    (i32.const 0))
)
