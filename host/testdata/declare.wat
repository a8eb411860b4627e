;; declare.wat: a guest that declares its states with state_declare (ABI
;; 1.1) in ws_init, checks that malformed declarations are BAD_ARGUMENT, and
;; that declaring from ws_process is BAD_ARGUMENT too. Any unexpected
;; result makes ws_init / ws_process return GUEST_INTERNAL (-102).
(module
  (import "wasmstream" "state_declare" (func $declare (param i32 i32 i32 i64 i32) (result i32)))
  (import "wasmstream" "record_next" (func $next (result i32)))
  (memory (export "memory") 1)
  ;; names: "seen" at 16, "total" at 32, "a\00b" at 48
  (data (i32.const 16) "seen")
  (data (i32.const 32) "total")
  (data (i32.const 48) "a\00b")
  (func (export "ws_abi_version") (result i32) (i32.const 1))
  (func (export "ws_alloc") (param i32) (result i32) (i32.const 1024))
  (func $expect (param $got i32) (param $want i32)
    (if (i32.ne (local.get $got) (local.get $want)) (then unreachable)))
  (func (export "ws_init") (param i32 i32) (result i32)
    ;; seen: v1, 60 s, on_create_and_write, processing time
    (call $expect (call $declare (i32.const 16) (i32.const 4) (i32.const 1) (i64.const 60000) (i32.const 0)) (i32.const 0))
    ;; total: v3, never expires
    (call $expect (call $declare (i32.const 32) (i32.const 5) (i32.const 3) (i64.const -1) (i32.const 0)) (i32.const 0))
    ;; seen again: v2, 120 s, read-and-write + event time: replaces the first
    (call $expect (call $declare (i32.const 16) (i32.const 4) (i32.const 2) (i64.const 120000) (i32.const 5)) (i32.const 0))
    ;; malformed: NUL in the name, version 0, ttl -2, unknown flag, empty name
    (call $expect (call $declare (i32.const 48) (i32.const 3) (i32.const 1) (i64.const 0) (i32.const 0)) (i32.const -3))
    (call $expect (call $declare (i32.const 16) (i32.const 4) (i32.const 0) (i64.const 0) (i32.const 0)) (i32.const -3))
    (call $expect (call $declare (i32.const 16) (i32.const 4) (i32.const 1) (i64.const -2) (i32.const 0)) (i32.const -3))
    (call $expect (call $declare (i32.const 16) (i32.const 4) (i32.const 1) (i64.const 0) (i32.const 16)) (i32.const -3))
    (call $expect (call $declare (i32.const 16) (i32.const 0) (i32.const 1) (i64.const 0) (i32.const 0)) (i32.const -3))
    (i32.const 0))
  (func (export "ws_process") (param i32 i32) (result i32)
    ;; too late: declarations are fixed once records flow
    (call $expect (call $declare (i32.const 16) (i32.const 4) (i32.const 1) (i64.const 1000) (i32.const 0)) (i32.const -3))
    (block $done (loop $records (br_if $done (i32.eqz (call $next))) (br $records)))
    (i32.const 0)))
