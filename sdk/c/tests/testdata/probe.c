/*
 * probe.c - a test operator that exercises every part of the C SDK. Each
 * record's value is a command, "name arg...", separated by single spaces;
 * results go to output "out" so that the Go tests can check them.
 *
 * Config: "reject" makes init fail (GUEST_CONFIG), "internal" makes it
 * return WS_GUEST_INTERNAL; anything else is kept and echoed by "config".
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "wasmstream.h"
#include "wasmstream_json.h"

static uint8_t *config;
static size_t config_len;

int ws_operator_init(const uint8_t *cfg, size_t len) {
    if (len == 6 && memcmp(cfg, "reject", 6) == 0) return ws_fail("probe: config %s rejected", "reject");
    if (len == 8 && memcmp(cfg, "internal", 8) == 0) return WS_GUEST_INTERNAL;
    config = malloc(len + 1);
    if (config == NULL) return WS_GUEST_INTERNAL;
    if (len > 0) memcpy(config, cfg, len);
    config_len = len;
    ws_infof("probe: init with %zu config bytes", len);
    return 0;
}

/* args splits a command into at most 4 space-separated words. */
typedef struct args {
    ws_bytes w[4];
    int n;
} args;

static args split(ws_bytes v) {
    args a = {.n = 0};
    size_t start = 0;
    for (size_t i = 0; i <= v.len && a.n < 4; i++) {
        if (i == v.len || (v.ptr[i] == ' ' && a.n < 3)) {
            a.w[a.n++] = (ws_bytes){v.ptr + start, i - start};
            start = i + 1;
        }
    }
    return a;
}

static int is(ws_bytes b, const char *s) { return ws_bytes_eq_str(b, s); }

/* cstr copies b into a NUL-terminated static buffer (names for the SDK). */
static const char *cstr(ws_bytes b, int slot) {
    static char bufs[2][1100];
    size_t n = b.len < sizeof bufs[0] - 1 ? b.len : sizeof bufs[0] - 1;
    memcpy(bufs[slot], b.ptr, n);
    bufs[slot][n] = 0;
    return bufs[slot];
}

static long num(ws_bytes b) { return strtol(cstr(b, 1), NULL, 10); }

static int emit_text(const ws_record *r, const char *text) {
    return ws_emit("out", r->key.ptr, r->key.len, text, strlen(text), WS_NO_HEADERS);
}

static int emit_bytes(const ws_record *r, ws_bytes b) {
    return ws_emit("out", r->key.ptr, r->key.len, b.ptr, b.len, WS_NO_HEADERS);
}

/* pattern fills n bytes with a position-dependent pattern. */
static uint8_t *pattern(size_t n) {
    uint8_t *p = malloc(n ? n : 1);
    for (size_t i = 0; p != NULL && i < n; i++) p[i] = (uint8_t)(i * 7 + 3);
    return p;
}

/* echo emits the record back with its headers, input and event times. */
static int echo(const ws_record *r) {
    ws_header hs[10];
    size_t n = 0;
    ws_header_iter it = ws_record_headers(r);
    ws_bytes name, value;
    while (n < 6 && ws_header_next(&it, &name, &value)) hs[n++] = (ws_header){name, value};
    char input[16], et[24], et2[24];
    snprintf(input, sizeof input, "%u", (unsigned)r->input);
    snprintf(et, sizeof et, "%lld", (long long)r->event_time_ns);
    snprintf(et2, sizeof et2, "%lld", (long long)ws_event_time());
    hs[n++] = ws_header_str("input", input);
    hs[n++] = ws_header_str("event-time", et);
    hs[n++] = ws_header_str("ws-event-time", et2);
    ws_bytes first;
    if (ws_record_header(r, "x-first", &first)) hs[n++] = ws_header_bytes("x-first-found", first.ptr, first.len);
    return ws_emit("out", r->key.ptr, r->key.len, r->value.ptr, r->value.len, hs, n);
}

/* put stores n pattern bytes under name, reads them back and compares. */
static int put(const ws_record *r, const char *name, size_t n) {
    uint8_t *p = pattern(n);
    ws_bytes got;
    int rc = ws_value_put(name, p, n);
    if (rc == 0) rc = ws_value_get(name, &got);
    if (rc == 1) rc = got.len == n && memcmp(got.ptr, p, n) == 0 ? 0 : ws_fail("probe: read back differs");
    free(p);
    if (rc < 0) return rc;
    char text[32];
    snprintf(text, sizeof text, "ok %zu", n);
    return emit_text(r, text);
}

static int get(const ws_record *r, int found, ws_bytes b) {
    if (found < 0) return found;
    return found ? emit_bytes(r, b) : emit_text(r, "absent");
}

static int add_i64(const ws_record *r, const char *name, long delta) {
    int64_t v;
    int found = ws_value_get_i64(name, &v);
    if (found < 0) return found;
    int rc = ws_value_put_i64(name, v + delta);
    if (rc < 0) return rc;
    char text[64];
    snprintf(text, sizeof text, "%s=%lld found=%d", name, (long long)(v + delta), found);
    return emit_text(r, text);
}

static int map_cmd(const ws_record *r, args a) {
    const char *m = cstr(a.w[1], 0);
    ws_bytes k = a.w[2], v;
    if (is(a.w[0], "mput")) {
        int rc = ws_map_put(m, k.ptr, k.len, a.w[3].ptr, a.w[3].len);
        return rc < 0 ? rc : emit_text(r, "ok");
    }
    if (is(a.w[0], "mget")) return get(r, ws_map_get(m, k.ptr, k.len, &v), v);
    int rc = ws_map_delete(m, k.ptr, k.len);
    return rc < 0 ? rc : emit_text(r, "ok");
}

/* json dumps the members of the flat object in the rest of the value. */
static int json(const ws_record *r, ws_bytes doc) {
    static ws_buf out;
    ws_json_iter it;
    ws_json_member m;
    int rc;
    ws_buf_reset(&out);
    ws_json_iter_init(&it, doc.ptr, doc.len);
    while ((rc = ws_json_next(&it, &m)) == 1) {
        ws_buf_append(&out, m.name.ptr, m.name.len);
        ws_buf_append_str(&out, "|");
        ws_buf_append_i64(&out, m.type);
        ws_buf_append_str(&out, "|");
        ws_buf_append(&out, m.text.ptr, m.text.len);
        ws_buf_append_str(&out, "|");
        ws_buf_append_i64(&out, m.num);
        ws_buf_append_str(&out, "\n");
    }
    if (rc < 0) {
        ws_buf_reset(&out);
        ws_buf_append_str(&out, "error at ");
        ws_buf_append_i64(&out, (int64_t)it.offset);
    }
    return ws_emit("out", r->key.ptr, r->key.len, out.ptr, out.len, WS_NO_HEADERS);
}

static int jsonstr(const ws_record *r, ws_bytes s) {
    static ws_buf out;
    ws_buf_reset(&out);
    ws_buf_append_json_string(&out, s.ptr, s.len);
    return ws_emit("out", r->key.ptr, r->key.len, out.ptr, out.len, WS_NO_HEADERS);
}

static int parse_int(const ws_record *r, ws_bytes s) {
    int64_t v;
    int rc = ws_parse_i64(s.ptr, s.len, &v);
    if (rc < 0) return rc;
    char text[32];
    snprintf(text, sizeof text, "%lld", (long long)v);
    return emit_text(r, text);
}

static int logs(void) {
    ws_tracef("probe trace %d", 0);
    ws_debugf("probe debug %d", 1);
    ws_infof("probe info %s", "two");
    ws_warnf("probe warn %c", '3');
    ws_errorf("probe error %x", 4);
    ws_log_bytes((ws_level)9, "probe clamped", 13);
    ws_log(WS_LOG_INFO, "probe plain");
    static char long_line[WS_LOG_LINE_MAX + 100];
    memset(long_line, 'x', sizeof long_line - 1);
    ws_infof("%s", long_line);
    return 0;
}

/* big emits a value of n bytes, or with a header value of n bytes. */
static int big(const ws_record *r, size_t n, int as_header) {
    uint8_t *p = pattern(n);
    int rc = as_header ? ws_emit("out", r->key.ptr, r->key.len, "h", 1, WS_HEADERS(ws_header_bytes("big", p, n)))
                       : ws_emit("out", r->key.ptr, r->key.len, p, n, WS_NO_HEADERS);
    free(p);
    return rc;
}

static int run(const ws_record *r, args a) {
    ws_bytes c = a.w[0];
    if (is(c, "echo")) return echo(r);
    if (is(c, "put")) return put(r, cstr(a.w[1], 0), (size_t)num(a.w[2]));
    if (is(c, "get")) { ws_bytes v; return get(r, ws_value_get(cstr(a.w[1], 0), &v), v); }
    if (is(c, "del")) { int rc = ws_value_delete(cstr(a.w[1], 0)); return rc < 0 ? rc : emit_text(r, "ok"); }
    if (is(c, "add")) return add_i64(r, cstr(a.w[1], 0), num(a.w[2]));
    if (is(c, "mput") || is(c, "mget") || is(c, "mdel")) return map_cmd(r, a);
    if (is(c, "raw-get")) { ws_bytes v; return get(r, ws_state_get(a.w[1].ptr, a.w[1].len, &v), v); }
    if (is(c, "fail")) return ws_fail("probe: failing as asked, code %d", 42);
    if (is(c, "code")) return (int)num(a.w[1]);
    if (is(c, "trap")) __builtin_trap();
    if (is(c, "emit-to")) return ws_emit(cstr(a.w[1], 0), "k", 1, "v", 1, WS_NO_HEADERS);
    if (is(c, "emit-n")) { for (long i = 0; i < num(a.w[1]); i++) { int rc = emit_text(r, "x"); if (rc < 0) return rc; } return 0; }
    if (is(c, "big")) return big(r, (size_t)num(a.w[1]), 0);
    if (is(c, "big-header")) return big(r, (size_t)num(a.w[1]), 1);
    if (is(c, "log")) return logs();
    if (is(c, "ptime")) { char t[32]; snprintf(t, sizeof t, "%lld", (long long)ws_processing_time()); return emit_text(r, t); }
    if (is(c, "config")) return ws_emit("out", r->key.ptr, r->key.len, config, config_len, WS_NO_HEADERS);
    if (is(c, "json")) return json(r, (ws_bytes){r->value.ptr + 5, r->value.len - 5});
    if (is(c, "jsonstr")) return jsonstr(r, (ws_bytes){r->value.ptr + 8, r->value.len - 8});
    if (is(c, "nop")) return 0;
    return ws_fail("probe: unknown command \"" WS_BYTES_FMT "\"", WS_BYTES_ARG(c));
}

int ws_operator_process(const ws_record *r) {
    ws_bytes v = r->value;
    /* json and jsonstr take the rest of the value verbatim. */
    if (v.len >= 5 && memcmp(v.ptr, "json ", 5) == 0) return run(r, (args){{{v.ptr, 4}}, 1});
    if (v.len >= 8 && memcmp(v.ptr, "jsonstr ", 8) == 0) return run(r, (args){{{v.ptr, 7}}, 1});
    if (v.len >= 4 && memcmp(v.ptr, "int ", 4) == 0) return parse_int(r, (ws_bytes){v.ptr + 4, v.len - 4});
    return run(r, split(v));
}
