/*
 * failer.c - the `failer` reference operator of conformance/OPERATORS.md:
 * a value starting with "fail" fails the record, the value "trap" traps
 * the guest, anything else increments the key's `count` (i64le) and is
 * emitted to "out" with its key and value and a header `count` holding the
 * new count in decimal. Config is ignored.
 */
#include <stdio.h>
#include <string.h>

#include "wasmstream.h"

static int starts_with(ws_bytes b, const char *prefix) {
    size_t n = strlen(prefix);
    return b.len >= n && memcmp(b.ptr, prefix, n) == 0;
}

int ws_operator_process(const ws_record *r) {
    if (starts_with(r->value, "fail")) return ws_fail("failer: the value starts with \"fail\"");
    if (ws_bytes_eq_str(r->value, "trap")) __builtin_trap();
    int64_t count;
    int rc = ws_value_get_i64("count", &count);
    if (rc < 0) return rc;
    if ((rc = ws_value_put_i64("count", ++count)) < 0) return rc;
    char text[24];
    snprintf(text, sizeof text, "%lld", (long long)count);
    return ws_emit("out", r->key.ptr, r->key.len, r->value.ptr, r->value.len,
                   WS_HEADERS(ws_header_str("count", text)));
}
