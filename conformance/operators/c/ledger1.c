/*
 * ledger1.c - the `ledger1` reference operator of conformance/OPERATORS.md:
 * each record's value is a decimal amount, added to the key's `total`,
 * which is stored as decimal text (version 1 of the state, never declared)
 * and emitted to "out". Config is ignored.
 */
#include <stdio.h>

#include "wasmstream.h"
#include "wasmstream_json.h"

int ws_operator_process(const ws_record *r) {
    int64_t amount, sum = 0;
    if (ws_parse_i64(r->value.ptr, r->value.len, &amount) < 0)
        return ws_fail("ledger1: bad amount: %s", ws_last_error());
    ws_bytes stored;
    int rc = ws_value_get("total", &stored);
    if (rc < 0) return rc;
    if (rc == 1 && ws_parse_i64(stored.ptr, stored.len, &sum) < 0)
        return ws_fail("ledger1: bad stored total: %s", ws_last_error());
    char text[24];
    int n = snprintf(text, sizeof text, "%lld", (long long)(sum + amount));
    if ((rc = ws_value_put("total", text, (size_t)n)) < 0) return rc;
    return ws_emit("out", r->key.ptr, r->key.len, text, (size_t)n, WS_NO_HEADERS);
}
