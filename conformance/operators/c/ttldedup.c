/*
 * ttldedup.c - the `ttldedup` reference operator of
 * conformance/OPERATORS.md: the first delivery of each id per key within a
 * TTL wins, through the SDK's dedup helper. The id is the record's value.
 *
 * Config: empty (TTL 60000 ms) or {"ttl_ms":N} with N >= 1; anything else
 * is rejected (GUEST_CONFIG). Init declares the dedup set "seen" with that
 * TTL (on create and write, never return expired, processing time); a new
 * id is emitted to "out" with the record's key and value and no headers.
 */
#include "wasmstream.h"
#include "wasmstream_json.h"

#define DEFAULT_TTL_MS 60000

int ws_operator_init(const uint8_t *cfg, size_t len) {
    ws_json_field f[] = {{.name = "ttl_ms", .type = WS_JSON_INT}};
    if (len == 0) return ws_dedup_declare("seen", DEFAULT_TTL_MS);
    if (ws_json_fields(cfg, len, f, 1, WS_JSON_REJECT_UNKNOWN) < 0)
        return ws_fail("ttldedup config: want {\"ttl_ms\": N}: %s", ws_last_error());
    if (!f[0].found) return ws_fail("ttldedup config: ttl_ms is missing");
    if (f[0].num < 1) return ws_fail("ttldedup config: ttl_ms is %lld, want 1 or more", (long long)f[0].num);
    return ws_dedup_declare("seen", f[0].num);
}

int ws_operator_process(const ws_record *r) {
    int dup = ws_dedup_is_duplicate("seen", r->value.ptr, r->value.len);
    if (dup != 0) return dup < 0 ? dup : 0; /* an error, or seen within the TTL */
    return ws_emit("out", r->key.ptr, r->key.len, r->value.ptr, r->value.len, WS_NO_HEADERS);
}
