/*
 * counter.c - the operator of harness_test.c: counts records per key
 * ("count", version 2), marks each value in the map "seen", emits the count
 * with a header "n" and logs it. A value "fail" is rejected; a value "lost"
 * emits to an output that is not wired. The config "reject" is rejected;
 * the config "read-state" reads state in ws_init, which the host forbids.
 */
#include <stdio.h>
#include <string.h>

#include "wasmstream.h"

int ws_operator_init(const uint8_t *cfg, size_t len) {
    if (len == 6 && memcmp(cfg, "reject", 6) == 0) return ws_fail("config rejected");
    if (len == 10 && memcmp(cfg, "read-state", 10) == 0) {
        int64_t n;
        return ws_value_get_i64("count", &n);
    }
    return ws_declare_state("count", (ws_state_options){.version = 2, .no_ttl = 1});
}

int ws_operator_process(const ws_record *r) {
    if (ws_bytes_eq_str(r->value, "fail")) return ws_fail("value \"fail\" of key " WS_BYTES_FMT, WS_BYTES_ARG(r->key));
    if (ws_bytes_eq_str(r->value, "lost")) return ws_emit("nowhere", r->key.ptr, r->key.len, NULL, 0, WS_NO_HEADERS);
    int64_t n;
    int rc = ws_value_get_i64("count", &n);
    if (rc < 0) return rc;
    if ((rc = ws_value_put_i64("count", ++n)) < 0) return rc;
    if ((rc = ws_map_put("seen", r->value.ptr, r->value.len, "1", 1)) < 0) return rc;
    char text[24];
    int len = snprintf(text, sizeof text, "%lld", (long long)n);
    ws_infof("count " WS_BYTES_FMT " %s", WS_BYTES_ARG(r->key), text);
    return ws_emit("out", r->key.ptr, r->key.len, text, (size_t)len, WS_HEADERS(ws_header_str("n", text)));
}
