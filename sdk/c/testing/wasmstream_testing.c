/*
 * wasmstream_testing.c - the fake host of wasmstream_testing.h: the host
 * imports of wasmstream.c, implemented in C for a native build, and the
 * harness that drives the SDK's exports. The checks follow abi/ABI.md 6.
 */
#include "wasmstream_testing.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The SDK's exports (wasmstream.c); natively they are plain functions. */
uint8_t *ws_export_alloc(uint32_t size);
int32_t ws_export_init(const uint8_t *cfg, uint32_t len);
int32_t ws_export_process(const uint8_t *batch, uint32_t len);

#define MAX_NAME 1024
#define MAX_OUTPUT_NAME 255
#define DEFAULT_MAX_VALUE (1u << 20)
#define DEFAULT_MAX_EMITS 64

/* ------------------------------------------------------------ helpers */

static void *must_alloc(size_t n) {
    void *p = malloc(n > 0 ? n : 1);
    if (p == NULL) {
        fprintf(stderr, "wasmstream_testing: out of memory\n");
        abort();
    }
    return p;
}

static uint8_t *dup_bytes(const void *p, size_t n) {
    uint8_t *d = must_alloc(n + 1);
    if (n > 0) memcpy(d, p, n);
    d[n] = 0; /* so that C strings can be read as such */
    return d;
}

/* grow makes room for one more element of size sz in *arr (capacity *cap, length len). */
static void grow(void **arr, size_t *cap, size_t len, size_t sz) {
    if (len < *cap) return;
    size_t want = *cap < 8 ? 8 : 2 * *cap;
    void *p = realloc(*arr, want * sz);
    if (p == NULL) {
        fprintf(stderr, "wasmstream_testing: out of memory\n");
        abort();
    }
    *arr = p;
    *cap = want;
}

static uint32_t get_u32(const uint8_t *p) {
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static void put_u32(uint8_t *p, uint32_t v) {
    for (int i = 0; i < 4; i++) p[i] = (uint8_t)(v >> (8 * i));
}

/* headers_valid reports whether b is a complete header list (abi.ValidateHeaders). */
static int headers_valid(const uint8_t *p, size_t n) {
    size_t at = 0;
    while (at < n) {
        for (int part = 0; part < 2; part++) {
            if (n - at < 4) return 0;
            uint32_t l = get_u32(p + at);
            at += 4;
            if (l > n - at) return 0;
            at += l;
        }
    }
    return 1;
}

/* -------------------------------------------------------------- state */

typedef struct entry {
    uint8_t *key, *name, *value;
    size_t key_len, name_len, value_len;
    int present; /* 0: a pending delete */
} entry;

typedef struct entries {
    entry *e;
    size_t len, cap;
} entries;

static entries committed, pending;

static void free_entry(entry *e) {
    free(e->key);
    free(e->name);
    free(e->value);
}

static void clear_entries(entries *s) {
    for (size_t i = 0; i < s->len; i++) free_entry(&s->e[i]);
    s->len = 0;
}

static entry *find(entries *s, const void *key, size_t kl, const void *name, size_t nl) {
    for (size_t i = s->len; i > 0; i--) {
        entry *e = &s->e[i - 1];
        if (e->key_len == kl && e->name_len == nl && memcmp(e->key, key, kl) == 0 && memcmp(e->name, name, nl) == 0)
            return e;
    }
    return NULL;
}

/* set replaces or adds the entry (key, name) of s. */
static void set(entries *s, const void *key, size_t kl, const void *name, size_t nl, const void *v, size_t vl,
                int present) {
    entry *e = find(s, key, kl, name, nl);
    if (e == NULL) {
        grow((void **)&s->e, &s->cap, s->len, sizeof(entry));
        e = &s->e[s->len++];
        e->key = dup_bytes(key, kl);
        e->key_len = kl;
        e->name = dup_bytes(name, nl);
        e->name_len = nl;
    } else {
        free(e->value);
    }
    e->value = present ? dup_bytes(v, vl) : NULL;
    e->value_len = present ? vl : 0;
    e->present = present;
}

static void remove_entry(entries *s, entry *e) {
    free_entry(e);
    size_t i = (size_t)(e - s->e);
    memmove(&s->e[i], &s->e[i + 1], (s->len - i - 1) * sizeof(entry));
    s->len--;
}

static void commit_state(void) {
    for (size_t i = 0; i < pending.len; i++) {
        entry *p = &pending.e[i];
        if (p->present) {
            set(&committed, p->key, p->key_len, p->name, p->name_len, p->value, p->value_len, 1);
        } else {
            entry *c = find(&committed, p->key, p->key_len, p->name, p->name_len);
            if (c != NULL) remove_entry(&committed, c);
        }
    }
    clear_entries(&pending);
}

/* ----------------------------------------------------- harness state */

static wst_options options;
static const char *default_outputs[] = {"out", NULL};

static wst_output *outputs, *pending_outputs;
static size_t outputs_len, outputs_cap, pending_len, pending_cap;
static wst_dead_letter *dead;
static size_t dead_len, dead_cap;
static wst_log_line *logs;
static size_t logs_len, logs_cap;
static wst_declaration *decls;
static size_t decls_len, decls_cap;

/* The batch being run: its records, the current one, the emits of the current record. */
static const wst_record *const *batch;
static size_t batch_len;
static long current = -1;
static size_t record_emits;
static int in_init, in_process, aborted;
static char abort_reason[512];
static char last_error_line[WS_LOG_LINE_MAX + 1];

static void free_output(wst_output *o) {
    free((void *)o->output.ptr);
    free((void *)o->key.ptr);
    free((void *)o->value.ptr);
    free((void *)o->headers.ptr);
}

static void clear_pending_outputs(void) {
    for (size_t i = 0; i < pending_len; i++) free_output(&pending_outputs[i]);
    pending_len = 0;
}

void wst_clear(void) {
    for (size_t i = 0; i < outputs_len; i++) free_output(&outputs[i]);
    outputs_len = 0;
    for (size_t i = 0; i < dead_len; i++) free((void *)dead[i].reason);
    dead_len = 0;
    for (size_t i = 0; i < logs_len; i++) free((void *)logs[i].msg);
    logs_len = 0;
    abort_reason[0] = 0;
}

static void clear_declarations(void) {
    for (size_t i = 0; i < decls_len; i++) free((void *)decls[i].name);
    decls_len = 0;
}

/* fatal records a call the real host would stop the guest for, and returns its code. */
static int32_t fatal(int32_t code, const char *fmt, ...) {
    if (!aborted) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(abort_reason, sizeof abort_reason, fmt, ap);
        va_end(ap);
        aborted = 1;
    }
    return code;
}

/* need_record is 0 when a record is current, else the fatal NO_RECORD. */
static int32_t need_record(const char *fn) {
    if (in_process && current >= 0) return 0;
    return fatal(WS_NO_RECORD, "%s called outside a record (NO_RECORD)", fn);
}

static int name_ok(size_t n) { return n >= 1 && n <= MAX_NAME; }

/* --------------------------------------------------- host functions */

int32_t ws_host_record_next(void) {
    if (!in_process) return fatal(WS_NO_RECORD, "record_next called outside ws_process (NO_RECORD)");
    if ((size_t)(current + 1) >= batch_len) return 0;
    current++;
    record_emits = 0;
    return 1;
}

static const wst_record *cur(void) { return batch[current]; }

int32_t ws_host_state_get(const void *name, size_t name_len, void *out, size_t out_cap) {
    int32_t rc = need_record("state_get");
    if (rc != 0) return rc;
    if (!name_ok(name_len)) return WS_BAD_ARGUMENT;
    const wst_record *r = cur();
    entry *e = find(&pending, r->key, r->key_len, name, name_len);
    if (e == NULL) e = find(&committed, r->key, r->key_len, name, name_len);
    if (e == NULL || !e->present) return WS_NOT_FOUND;
    if (e->value_len <= out_cap && e->value_len > 0) memcpy(out, e->value, e->value_len);
    return (int32_t)e->value_len;
}

int32_t ws_host_state_put(const void *name, size_t name_len, const void *val, size_t val_len) {
    int32_t rc = need_record("state_put");
    if (rc != 0) return rc;
    if (!name_ok(name_len)) return WS_BAD_ARGUMENT;
    if (val_len > options.max_value_bytes) return WS_TOO_LARGE;
    set(&pending, cur()->key, cur()->key_len, name, name_len, val, val_len, 1);
    return WS_OK;
}

int32_t ws_host_state_delete(const void *name, size_t name_len) {
    int32_t rc = need_record("state_delete");
    if (rc != 0) return rc;
    if (!name_ok(name_len)) return WS_BAD_ARGUMENT;
    set(&pending, cur()->key, cur()->key_len, name, name_len, NULL, 0, 0);
    return WS_OK;
}

static int wired(const void *out, size_t len) {
    for (const char *const *o = options.outputs; *o != NULL; o++)
        if (strlen(*o) == len && memcmp(*o, out, len) == 0) return 1;
    return 0;
}

int32_t ws_host_emit(const void *out, size_t out_len, const void *key, size_t key_len, const void *val,
                     size_t val_len, const void *hdr, size_t hdr_len) {
    int32_t rc = need_record("emit");
    if (rc != 0) return rc;
    if (out_len < 1 || out_len > MAX_OUTPUT_NAME || !headers_valid(hdr, hdr_len)) return WS_BAD_ARGUMENT;
    if (!wired(out, out_len)) return WS_UNKNOWN_OUTPUT;
    size_t max = options.max_value_bytes;
    if (key_len > max || val_len > max || hdr_len > max) return WS_TOO_LARGE;
    if (record_emits >= options.max_emits_per_record) return WS_QUOTA_EXCEEDED;
    record_emits++;
    grow((void **)&pending_outputs, &pending_cap, pending_len, sizeof(wst_output));
    pending_outputs[pending_len++] = (wst_output){
        .output = {dup_bytes(out, out_len), out_len},
        .key = {dup_bytes(key, key_len), key_len},
        .value = {dup_bytes(val, val_len), val_len},
        .headers = {dup_bytes(hdr, hdr_len), hdr_len},
        .record = (size_t)current,
    };
    return WS_OK;
}

void ws_host_log(int32_t level, const void *msg, size_t len) {
    if (level < WS_LOG_TRACE || level > WS_LOG_ERROR) {
        fatal(WS_BAD_ARGUMENT, "log level %d is not 0..4 (BAD_ARGUMENT)", (int)level);
        return;
    }
    if (len > WS_LOG_LINE_MAX) len = WS_LOG_LINE_MAX;
    grow((void **)&logs, &logs_cap, logs_len, sizeof(wst_log_line));
    logs[logs_len++] = (wst_log_line){(ws_level)level, (const char *)dup_bytes(msg, len), in_process ? current : -1};
    if (level == WS_LOG_ERROR) {
        memcpy(last_error_line, msg, len);
        last_error_line[len] = 0;
    }
}

int64_t ws_host_event_time(void) {
    if (need_record("event_time") != 0) return 0;
    return cur()->event_time_ns;
}

int64_t ws_host_processing_time(void) { return options.processing_time_ns; }

int32_t ws_host_state_declare(const void *name, size_t name_len, int32_t version, int64_t ttl_ms, int32_t flags) {
    if (!in_init || !name_ok(name_len) || memchr(name, 0, name_len) != NULL || version < 1 || ttl_ms < -1 ||
        (flags & ~0xF) != 0)
        return WS_BAD_ARGUMENT;
    for (size_t i = 0; i < decls_len; i++) {
        if (strlen(decls[i].name) == name_len && memcmp(decls[i].name, name, name_len) == 0) {
            decls[i].version = version;
            decls[i].ttl_ms = ttl_ms;
            decls[i].flags = flags;
            return WS_OK;
        }
    }
    grow((void **)&decls, &decls_cap, decls_len, sizeof(wst_declaration));
    decls[decls_len++] = (wst_declaration){(const char *)dup_bytes(name, name_len), version, ttl_ms, flags};
    return WS_OK;
}

/* ------------------------------------------------------------ harness */

wst_record wst_rec(const char *key, const char *value) {
    return (wst_record){.key = key, .key_len = strlen(key), .value = value, .value_len = strlen(value)};
}

int wst_init(const void *config, size_t config_len, const wst_options *opts) {
    wst_clear();
    clear_entries(&committed);
    clear_entries(&pending);
    clear_pending_outputs();
    clear_declarations();
    options = opts != NULL ? *opts : (wst_options){0};
    if (options.outputs == NULL) options.outputs = default_outputs;
    if (options.max_value_bytes == 0) options.max_value_bytes = DEFAULT_MAX_VALUE;
    if (options.max_emits_per_record == 0) options.max_emits_per_record = DEFAULT_MAX_EMITS;
    const uint8_t *cfg = NULL;
    if (config_len > 0) {
        uint8_t *buf = ws_export_alloc((uint32_t)config_len);
        memcpy(buf, config, config_len);
        cfg = buf;
    }
    aborted = 0;
    abort_reason[0] = 0;
    in_init = 1;
    int32_t rc = ws_export_init(cfg, (uint32_t)config_len);
    in_init = 0;
    if (aborted) return WST_ABORTED;
    return rc;
}

/* encode writes the live records into the SDK's ws_alloc buffer; its length. */
static uint32_t encode(void) {
    size_t n = 4;
    for (size_t i = 0; i < batch_len; i++)
        n += 24 + batch[i]->key_len + batch[i]->value_len + batch[i]->headers_len;
    uint8_t *buf = ws_export_alloc((uint32_t)(n + n / 4)), *p = buf + 4;
    put_u32(buf, (uint32_t)batch_len);
    for (size_t i = 0; i < batch_len; i++) {
        const wst_record *r = batch[i];
        uint64_t t = (uint64_t)r->event_time_ns;
        put_u32(p, (uint32_t)t);
        put_u32(p + 4, (uint32_t)(t >> 32));
        put_u32(p + 8, r->input);
        p += 12;
        const void *parts[3] = {r->key, r->value, r->headers};
        size_t lens[3] = {r->key_len, r->value_len, r->headers_len};
        for (int k = 0; k < 3; k++) {
            put_u32(p, (uint32_t)lens[k]);
            if (lens[k] > 0) memcpy(p + 4, parts[k], lens[k]);
            p += 4 + lens[k];
        }
    }
    return (uint32_t)n;
}

/* run_once calls ws_process on the live records. */
static int32_t run_once(void) {
    uint32_t len = encode();
    current = -1;
    aborted = 0;
    abort_reason[0] = 0;
    last_error_line[0] = 0;
    in_process = 1;
    int32_t rc = ws_export_process(ws_export_alloc(len), len);
    in_process = 0;
    if (aborted) return WST_ABORTED;
    if (rc == WS_OK && (size_t)(current + 1) != batch_len) {
        fatal(WS_NO_RECORD, "ws_process returned 0 after %ld of %zu records (ABI misuse)", current + 1, batch_len);
        return WST_ABORTED;
    }
    return rc;
}

static void commit_outputs(const size_t *index) {
    for (size_t i = 0; i < pending_len; i++) {
        grow((void **)&outputs, &outputs_cap, outputs_len, sizeof(wst_output));
        wst_output o = pending_outputs[i];
        o.record = index[o.record];
        outputs[outputs_len++] = o;
    }
    pending_len = 0;
}

int wst_process(const wst_record *records, size_t n) {
    const wst_record **live = must_alloc(n * sizeof *live);
    size_t *index = must_alloc(n * sizeof *index); /* live record -> its index in records */
    for (size_t i = 0; i < n; i++) {
        live[i] = &records[i];
        index[i] = i;
    }
    batch = live;
    batch_len = n;
    int32_t rc;
    while ((rc = run_once()) == WS_GUEST_RECORD && current >= 0) {
        clear_entries(&pending);
        clear_pending_outputs();
        grow((void **)&dead, &dead_cap, dead_len, sizeof(wst_dead_letter));
        const char *reason = (const char *)dup_bytes(last_error_line, strlen(last_error_line));
        dead[dead_len++] = (wst_dead_letter){index[current], rc, reason};
        memmove(&live[current], &live[current + 1], (batch_len - (size_t)current - 1) * sizeof *live);
        memmove(&index[current], &index[current + 1], (batch_len - (size_t)current - 1) * sizeof *index);
        batch_len--;
    }
    if (rc == WS_OK) {
        commit_state();
        commit_outputs(index);
    } else {
        clear_entries(&pending);
        clear_pending_outputs();
    }
    batch = NULL;
    batch_len = 0;
    current = -1;
    free(live);
    free(index);
    return rc;
}

size_t wst_outputs(void) { return outputs_len; }
const wst_output *wst_output_at(size_t i) { return i < outputs_len ? &outputs[i] : NULL; }
size_t wst_dead_letters(void) { return dead_len; }
const wst_dead_letter *wst_dead_letter_at(size_t i) { return i < dead_len ? &dead[i] : NULL; }
size_t wst_logs(void) { return logs_len; }
const wst_log_line *wst_log_at(size_t i) { return i < logs_len ? &logs[i] : NULL; }
size_t wst_declarations(void) { return decls_len; }
const wst_declaration *wst_declaration_at(size_t i) { return i < decls_len ? &decls[i] : NULL; }
const char *wst_abort_reason(void) { return abort_reason; }

int wst_output_header(const wst_output *o, const char *name, ws_bytes *value) {
    const uint8_t *p = o->headers.ptr;
    size_t at = 0, n = o->headers.len, nl = strlen(name);
    while (n - at >= 8) {
        uint32_t kl = get_u32(p + at);
        const uint8_t *k = p + at + 4;
        uint32_t vl = get_u32(k + kl);
        if (kl == nl && memcmp(k, name, nl) == 0) {
            *value = (ws_bytes){k + kl + 4, vl};
            return 1;
        }
        at += 8 + kl + vl;
    }
    return 0;
}

int wst_state(const char *key, const char *name, ws_bytes *value) {
    entry *e = find(&committed, key, strlen(key), name, strlen(name));
    if (e == NULL) return 0;
    *value = (ws_bytes){e->value, e->value_len};
    return 1;
}

int wst_state_i64(const char *key, const char *name, int64_t *v) {
    ws_bytes b;
    if (!wst_state(key, name, &b) || b.len != 8) return 0;
    *v = ws_i64_decode(b.ptr);
    return 1;
}

int wst_map_state(const char *key, const char *name, const char *map_key, ws_bytes *value) {
    size_t nl = strlen(name), ml = strlen(map_key);
    uint8_t *full = must_alloc(nl + 1 + ml);
    memcpy(full, name, nl);
    full[nl] = 0;
    memcpy(full + nl + 1, map_key, ml);
    entry *e = find(&committed, key, strlen(key), full, nl + 1 + ml);
    free(full);
    if (e == NULL) return 0;
    *value = (ws_bytes){e->value, e->value_len};
    return 1;
}

void wst_set_state(const char *key, const char *name, const void *value, size_t len) {
    set(&committed, key, strlen(key), name, strlen(name), value, len, 1);
}

size_t wst_state_len(void) { return committed.len; }

size_t wst_headers(uint8_t *buf, size_t cap, const char *const *pairs, size_t n) {
    size_t at = 0;
    for (size_t i = 0; i < 2 * n; i++) {
        size_t l = strlen(pairs[i]);
        if (cap - at < 4 + l) return 0;
        put_u32(buf + at, (uint32_t)l);
        memcpy(buf + at + 4, pairs[i], l);
        at += 4 + l;
    }
    return at;
}
