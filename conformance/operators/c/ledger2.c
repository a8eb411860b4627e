/*
 * ledger2.c - the `ledger2` reference operator of conformance/OPERATORS.md:
 * ledger1's running total stored as {"total":N}, version 2 of the state,
 * with the migration from version 1 that an upgrade from ledger1 runs. A
 * total never goes negative. Config is ignored.
 */
#include <stdio.h>
#include <string.h>

#include "wasmstream.h"
#include "wasmstream_json.h"

#define PREFIX "{\"total\":"
#define SUFFIX "}"

/* encode writes {"total":N} into out (at least 40 bytes); returns its length. */
static size_t encode(char *out, size_t cap, int64_t total) {
    return (size_t)snprintf(out, cap, PREFIX "%lld" SUFFIX, (long long)total);
}

/* decode reads exactly {"total":N}; 0 or WS_DECODE. */
static int decode(ws_bytes b, int64_t *total) {
    size_t p = strlen(PREFIX), s = strlen(SUFFIX);
    if (b.len < p + s || memcmp(b.ptr, PREFIX, p) != 0 || memcmp(b.ptr + b.len - s, SUFFIX, s) != 0 ||
        ws_parse_i64(b.ptr + p, b.len - p - s, total) < 0)
        return ws_set_error(WS_DECODE, "the stored total is not {\"total\":N}");
    return WS_OK;
}

/* migrate_total converts a version-1 total (decimal text): zero is
 * deleted, a negative total fails the upgrade. */
static int migrate_total(ws_bytes name, int32_t from_version, ws_bytes old) {
    (void)name;
    if (from_version != 1) return ws_fail("ledger2: no migration from version %d", (int)from_version);
    int64_t n;
    if (ws_parse_i64(old.ptr, old.len, &n) < 0) return ws_fail("ledger2: bad version 1 total: %s", ws_last_error());
    if (n == 0) return WS_NOT_FOUND;
    if (n < 0) return ws_fail("ledger2: a total cannot be negative: version 1 holds %lld", (long long)n);
    char json[40];
    return ws_migrated(json, encode(json, sizeof json, n));
}

int ws_operator_init(const uint8_t *cfg, size_t len) {
    (void)cfg;
    (void)len;
    return ws_declare_state("total", (ws_state_options){.version = 2, .migrate = migrate_total});
}

int ws_operator_process(const ws_record *r) {
    int64_t amount, sum = 0;
    if (ws_parse_i64(r->value.ptr, r->value.len, &amount) < 0)
        return ws_fail("ledger2: bad amount: %s", ws_last_error());
    ws_bytes stored;
    int rc = ws_value_get("total", &stored);
    if (rc < 0) return rc;
    if (rc == 1 && (rc = decode(stored, &sum)) < 0) return rc;
    if (sum + amount < 0)
        return ws_fail("ledger2: a total cannot be negative: %lld%+lld", (long long)sum, (long long)amount);
    char json[40];
    size_t n = encode(json, sizeof json, sum + amount);
    if ((rc = ws_value_put("total", json, n)) < 0) return rc;
    return ws_emit("out", r->key.ptr, r->key.len, json, n, WS_NO_HEADERS);
}
