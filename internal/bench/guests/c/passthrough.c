/*
 * passthrough.c - the C pass-through guest of the yardstick benchmark
 * (internal/bench/yardstick_test.go): every record is emitted unchanged to
 * "out" with its key and value, no headers and no state. Config is ignored.
 */
#include "wasmstream.h"

int ws_operator_process(const ws_record *r) {
    return ws_emit("out", r->key.ptr, r->key.len, r->value.ptr, r->value.len, WS_NO_HEADERS);
}
