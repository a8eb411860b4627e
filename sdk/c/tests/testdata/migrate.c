/*
 * migrate.c - a test operator for migrations (ABI 1.2, ws_migrate).
 *
 * It declares "total" version 2, whose migration turns a decimal total of
 * version 1 into {"total":N}: "0" is deleted, "silent" returns 0 without
 * setting a value, anything else that is not a decimal fails; "limits"
 * version 3, whose migration returns the stored name (to show which name a
 * map entry gets); and "plain" version 2 without a migration.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "wasmstream.h"

static int total_to_v2(ws_bytes name, int32_t from_version, ws_bytes old) {
    (void)name;
    if (from_version != 1) return ws_fail("no migration from version %d", (int)from_version);
    if (ws_bytes_eq_str(old, "0")) return WS_NOT_FOUND;
    if (ws_bytes_eq_str(old, "silent")) return WS_OK;
    char text[24], json[40];
    if (old.len == 0 || old.len >= sizeof text) return ws_fail("the stored total is not a decimal integer");
    memcpy(text, old.ptr, old.len);
    text[old.len] = 0;
    char *end;
    long long n = strtoll(text, &end, 10);
    if (*end != 0) return ws_fail("the stored total " WS_BYTES_FMT " is not a decimal integer", WS_BYTES_ARG(old));
    int len = snprintf(json, sizeof json, "{\"total\":%lld}", n);
    return ws_migrated(json, (size_t)len);
}

static int stored_name(ws_bytes name, int32_t from_version, ws_bytes old) {
    (void)from_version;
    (void)old;
    return ws_migrated(name.ptr, name.len);
}

int ws_operator_init(const uint8_t *cfg, size_t len) {
    (void)cfg;
    (void)len;
    int rc = ws_declare_state("total", (ws_state_options){.version = 2, .migrate = total_to_v2});
    if (rc == 0) rc = ws_declare_state("limits", (ws_state_options){.version = 3, .migrate = stored_name});
    if (rc == 0) rc = ws_declare_state("plain", (ws_state_options){.version = 2});
    return rc;
}

int ws_operator_process(const ws_record *r) {
    (void)r;
    return 0;
}
