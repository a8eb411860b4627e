/*
 * declare.c - a test operator for state declarations (ABI 1.1) and the
 * dedup helper. Its config picks what ws_operator_init declares:
 *
 *   ""            total (v2, never expires; declared twice), notes (v3,
 *                 90 s, on read and write, return expired, event time),
 *                 plain (nothing about TTL), seen (dedup set, 1500 ms)
 *   "reject"      declares, then rejects the config
 *   "bad-ttl"     a negative ttl.ms, result ignored
 *   "bad-enum"    an update type out of range, result ignored
 *   "checked"     a dedup TTL of 0, result returned
 *   "bad-version" version -1, which the host refuses
 *   "long-name"   a name of 1025 bytes, which the host refuses
 *
 * A record whose value is "late" declares from ws_operator_process and
 * emits the code it got; any other value is an id of dedup set "seen",
 * emitted (key and value) the first time per key.
 */
#include <string.h>

#include "wasmstream.h"

static int is(const uint8_t *cfg, size_t len, const char *s) {
    return len == strlen(s) && (len == 0 || memcmp(cfg, s, len) == 0);
}

static int declare_all(void) {
    int rc = ws_declare_state("total", (ws_state_options){.version = 5});
    if (rc == 0)
        rc = ws_declare_state("notes", (ws_state_options){
                                           .version = 3,
                                           .ttl = {.ms = 90000,
                                                   .update = WS_TTL_ON_READ_AND_WRITE,
                                                   .visibility = WS_TTL_RETURN_EXPIRED_IF_NOT_CLEANED,
                                                   .time = WS_TTL_EVENT_TIME},
                                       });
    if (rc == 0) rc = ws_declare_state("plain", (ws_state_options){0});
    if (rc == 0) rc = ws_dedup_declare("seen", 1500);
    /* Replaces the first declaration of total, keeping its place. */
    if (rc == 0) rc = ws_declare_state("total", (ws_state_options){.version = 2, .no_ttl = 1});
    return rc;
}

int ws_operator_init(const uint8_t *cfg, size_t len) {
    static char long_name[1026];
    int rc = declare_all();
    if (rc != 0) return rc;
    if (is(cfg, len, "reject")) return ws_fail("declare: config rejected on purpose");
    if (is(cfg, len, "bad-ttl")) ws_declare_state("x", (ws_state_options){.ttl = {.ms = -5}});
    if (is(cfg, len, "bad-enum"))
        ws_declare_state("x", (ws_state_options){.ttl = {.ms = 5, .update = (ws_ttl_update)7}});
    if (is(cfg, len, "checked")) return ws_dedup_declare("other", 0);
    if (is(cfg, len, "bad-version")) ws_declare_state("v", (ws_state_options){.version = -1});
    if (is(cfg, len, "long-name")) {
        memset(long_name, 'n', 1025);
        ws_declare_state(long_name, (ws_state_options){0});
    }
    return 0;
}

int ws_operator_process(const ws_record *r) {
    if (ws_bytes_eq_str(r->value, "late")) {
        const char *code = ws_code_name(ws_declare_state("late", (ws_state_options){0}));
        return ws_emit("out", r->key.ptr, r->key.len, code, strlen(code), WS_NO_HEADERS);
    }
    int dup = ws_dedup_is_duplicate("seen", r->value.ptr, r->value.len);
    if (dup != 0) return dup < 0 ? dup : 0;
    return ws_emit("out", r->key.ptr, r->key.len, r->value.ptr, r->value.len, WS_NO_HEADERS);
}
