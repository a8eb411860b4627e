/*
 * wasmstream.c - the C SDK for wasmstream operators (ABI version 1,
 * revision 1.1).
 * The API is documented in wasmstream.h; the contract in abi/ABI.md.
 *
 * Memory: the SDK allocates only when a buffer must grow (the ws_alloc
 * buffer, the state read buffer). Nothing is allocated per record, and the
 * read buffer returns to its static size after a record that needed more,
 * so memory stays bounded however many records an instance sees.
 */
#include "wasmstream.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------- imports */

#ifdef __wasm__
#define WS_IMPORT(fn) __attribute__((import_module("wasmstream"), import_name(fn)))
#define WS_EXPORT(fn) __attribute__((export_name(fn)))
#else
/* A native build (the test harness, testing/wasmstream_testing.c) links
 * the host functions from the harness and calls the exports directly. */
#define WS_IMPORT(fn)
#define WS_EXPORT(fn)
#endif

WS_IMPORT("record_next") int32_t ws_host_record_next(void);
WS_IMPORT("state_get")
int32_t ws_host_state_get(const void *name, size_t name_len, void *out, size_t out_cap);
WS_IMPORT("state_put")
int32_t ws_host_state_put(const void *name, size_t name_len, const void *val, size_t val_len);
WS_IMPORT("state_delete") int32_t ws_host_state_delete(const void *name, size_t name_len);
WS_IMPORT("emit")
int32_t ws_host_emit(const void *out, size_t out_len, const void *key, size_t key_len,
                     const void *val, size_t val_len, const void *hdr, size_t hdr_len);
WS_IMPORT("log") void ws_host_log(int32_t level, const void *msg, size_t len);
WS_IMPORT("event_time") int64_t ws_host_event_time(void);
WS_IMPORT("processing_time") int64_t ws_host_processing_time(void);
/* Revision 1.1 (ABI.md 6.10). */
WS_IMPORT("state_declare")
int32_t ws_host_state_declare(const void *name, size_t name_len, int32_t version, int64_t ttl_ms,
                              int32_t flags);

/* ---------------------------------------------------------- little end */

static uint32_t get_u32(const uint8_t *p) {
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static void put_u32(uint8_t *p, uint32_t v) {
    for (int i = 0; i < 4; i++) p[i] = (uint8_t)(v >> (8 * i));
}

void ws_i64_encode(uint8_t out[8], int64_t v) {
    uint64_t u = (uint64_t)v;
    for (int i = 0; i < 8; i++) out[i] = (uint8_t)(u >> (8 * i));
}

int64_t ws_i64_decode(const uint8_t in[8]) {
    uint64_t u = 0;
    for (int i = 7; i >= 0; i--) u = u << 8 | in[i];
    return (int64_t)u;
}

int ws_bytes_eq_str(ws_bytes a, const char *s) {
    size_t n = strlen(s);
    return a.len == n && (n == 0 || memcmp(a.ptr, s, n) == 0);
}

/* -------------------------------------------------------------- errors */

const char *ws_code_name(int code) {
    switch (code) {
    case WS_OK: return "OK";
    case WS_NOT_FOUND: return "NOT_FOUND";
    case WS_BAD_POINTER: return "BAD_POINTER";
    case WS_BAD_ARGUMENT: return "BAD_ARGUMENT";
    case WS_NO_RECORD: return "NO_RECORD";
    case WS_TOO_LARGE: return "TOO_LARGE";
    case WS_UNKNOWN_OUTPUT: return "UNKNOWN_OUTPUT";
    case WS_QUOTA_EXCEEDED: return "QUOTA_EXCEEDED";
    case WS_REENTRANT: return "REENTRANT";
    case WS_GUEST_CONFIG: return "GUEST_CONFIG";
    case WS_GUEST_RECORD: return "GUEST_RECORD";
    case WS_GUEST_INTERNAL: return "GUEST_INTERNAL";
    case WS_DECODE: return "DECODE";
    case WS_NO_MEMORY: return "NO_MEMORY";
    default: return "UNKNOWN_CODE";
    }
}

/* code_advice says what a host code means for the user, for messages. */
static const char *code_advice(int code) {
    switch (code) {
    case WS_BAD_ARGUMENT:
        return "a name outside 1..1024 bytes (outputs 1..255) or a malformed header list";
    case WS_TOO_LARGE:
        return "over the operator's size limit; keep values smaller or raise "
               "limits.max_value_bytes in the pipeline file";
    case WS_UNKNOWN_OUTPUT:
        return "output not wired in the pipeline file; add it to the operator's outputs";
    case WS_QUOTA_EXCEEDED:
        return "more emits for this record than limits.max_emits_per_record allows";
    default:
        return "unknown error code from the host; the host is probably newer than this SDK";
    }
}

/* The message of the last failure during the current record or init. */
static char last_error[512];

/* vset_error formats into a second buffer first, so that an argument may
 * be ws_last_error() itself: ws_fail("bad event: %s", ws_last_error()). */
static int vset_error(int code, const char *fmt, va_list ap) {
    static char next[sizeof last_error];
    vsnprintf(next, sizeof next, fmt, ap);
    memcpy(last_error, next, sizeof last_error);
    return code;
}

int ws_set_error(int code, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    vset_error(code, fmt, ap);
    va_end(ap);
    return code;
}

int ws_fail(const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    vset_error(WS_GUEST_RECORD, fmt, ap);
    va_end(ap);
    return WS_GUEST_RECORD;
}

const char *ws_last_error(void) { return last_error; }

/* host_error records a failed host call on the object (op, name). */
static int host_error(int code, const char *op, const void *name, size_t name_len) {
    return ws_set_error(code, "%s \"%.*s\": %s: %s", op, (int)name_len, (const char *)name,
                        ws_code_name(code), code_advice(code));
}

/* ----------------------------------------------------------------- log */

void ws_log_bytes(ws_level level, const void *msg, size_t len) {
    /* Clamp rather than let the host log an unknown level as an error. */
    int l = (int)level < WS_LOG_TRACE ? WS_LOG_TRACE : (int)level > WS_LOG_ERROR ? WS_LOG_ERROR : (int)level;
    ws_host_log(l, msg, len);
}

void ws_log(ws_level level, const char *msg) { ws_log_bytes(level, msg, strlen(msg)); }

void ws_vlogf(ws_level level, const char *fmt, va_list ap) {
    static char line[WS_LOG_LINE_MAX];
    int n = vsnprintf(line, sizeof line, fmt, ap);
    if (n < 0) return;
    ws_log_bytes(level, line, (size_t)n < sizeof line ? (size_t)n : sizeof line - 1);
}

void ws_logf(ws_level level, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    ws_vlogf(level, fmt, ap);
    va_end(ap);
}

/* ---------------------------------------------------------------- time */

int64_t ws_event_time(void) { return ws_host_event_time(); }

int64_t ws_processing_time(void) { return ws_host_processing_time(); }

/* --------------------------------------------------------------- state */

/*
 * State reads land in a static buffer first; a larger value is read again
 * into a malloc'd one, which is released after the record when it is over
 * SCRATCH_KEEP so that one huge value does not pin memory for good.
 */
#define SCRATCH_STATIC 1024
#define SCRATCH_KEEP (64 * 1024)
static uint8_t scratch_static[SCRATCH_STATIC];
static uint8_t *scratch = scratch_static;
static size_t scratch_cap = SCRATCH_STATIC;

/* grow_scratch replaces the read buffer by one of n bytes; the old
 * contents are not needed, so it is freed first. */
static int grow_scratch(size_t n) {
    if (scratch != scratch_static) free(scratch);
    scratch = malloc(n);
    scratch_cap = n;
    if (scratch != NULL) return 1;
    scratch = scratch_static;
    scratch_cap = SCRATCH_STATIC;
    return 0;
}

/* release_scratch runs after every record. */
static void release_scratch(void) {
    if (scratch_cap > SCRATCH_KEEP) {
        free(scratch);
        scratch = scratch_static;
        scratch_cap = SCRATCH_STATIC;
    }
}

/* state_read implements the retry protocol of ABI.md 6.2. */
static int state_read(const char *op, const void *name, size_t name_len, ws_bytes *out) {
    for (;;) {
        int32_t n = ws_host_state_get(name, name_len, scratch, scratch_cap);
        if (n == WS_NOT_FOUND) {
            *out = (ws_bytes){NULL, 0};
            return 0;
        }
        if (n < 0) return host_error(n, op, name, name_len);
        if ((size_t)n <= scratch_cap) {
            *out = (ws_bytes){scratch, (size_t)n};
            return 1;
        }
        if (!grow_scratch((size_t)n))
            return ws_set_error(WS_NO_MEMORY, "%s \"%.*s\": no memory for a value of %d bytes", op,
                                (int)name_len, (const char *)name, (int)n);
    }
}

static int state_write(const char *op, const void *name, size_t name_len, const void *val, size_t len) {
    int32_t rc = ws_host_state_put(name, name_len, val, len);
    return rc < 0 ? host_error(rc, op, name, name_len) : WS_OK;
}

static int state_remove(const char *op, const void *name, size_t name_len) {
    int32_t rc = ws_host_state_delete(name, name_len);
    return rc < 0 ? host_error(rc, op, name, name_len) : WS_OK;
}

/* decode_i64 turns a state read result into an int64 (0 when absent). */
static int decode_i64(int found, ws_bytes b, const char *op, const char *name, int64_t *out) {
    *out = 0;
    if (found <= 0) return found;
    if (b.len != 8)
        return ws_set_error(WS_DECODE, "%s \"%s\": value of %zu bytes is not an i64 (8 bytes)", op,
                            name, b.len);
    *out = ws_i64_decode(b.ptr);
    return 1;
}

int ws_state_get(const void *name, size_t name_len, ws_bytes *out) {
    return state_read("state get", name, name_len, out);
}

int ws_state_put(const void *name, size_t name_len, const void *value, size_t value_len) {
    return state_write("state put", name, name_len, value, value_len);
}

int ws_state_delete(const void *name, size_t name_len) {
    return state_remove("state delete", name, name_len);
}

int ws_value_get(const char *name, ws_bytes *out) {
    return state_read("state get", name, strlen(name), out);
}

int ws_value_put(const char *name, const void *value, size_t value_len) {
    return state_write("state put", name, strlen(name), value, value_len);
}

int ws_value_delete(const char *name) { return state_remove("state delete", name, strlen(name)); }

int ws_value_get_i64(const char *name, int64_t *out) {
    ws_bytes b;
    return decode_i64(ws_value_get(name, &b), b, "state get", name, out);
}

int ws_value_put_i64(const char *name, int64_t v) {
    uint8_t b[8];
    ws_i64_encode(b, v);
    return ws_value_put(name, b, sizeof b);
}

/* entry holds the host name of a map entry: name, NUL, map key. */
static uint8_t entry[WS_MAX_STATE_NAME_LEN];

/* entry_name builds name "\0" key in entry; its length, or a negative code. */
static int entry_name(const char *op, const char *name, const void *key, size_t key_len) {
    size_t n = strlen(name);
    if (n == 0) return ws_set_error(WS_BAD_ARGUMENT, "%s: empty map name", op);
    if (n + 1 + key_len > sizeof entry)
        return ws_set_error(WS_BAD_ARGUMENT,
                            "%s \"%s\": map key of %zu bytes is too long: name, separator and key "
                            "must fit in %d bytes",
                            op, name, key_len, WS_MAX_STATE_NAME_LEN);
    memcpy(entry, name, n);
    entry[n] = 0;
    if (key_len > 0) memcpy(entry + n + 1, key, key_len);
    return (int)(n + 1 + key_len);
}

int ws_map_get(const char *name, const void *key, size_t key_len, ws_bytes *out) {
    int n = entry_name("map get", name, key, key_len);
    return n < 0 ? n : state_read("map get", entry, (size_t)n, out);
}

int ws_map_put(const char *name, const void *key, size_t key_len, const void *value, size_t value_len) {
    int n = entry_name("map put", name, key, key_len);
    return n < 0 ? n : state_write("map put", entry, (size_t)n, value, value_len);
}

int ws_map_delete(const char *name, const void *key, size_t key_len) {
    int n = entry_name("map delete", name, key, key_len);
    return n < 0 ? n : state_remove("map delete", entry, (size_t)n);
}

int ws_map_get_i64(const char *name, const void *key, size_t key_len, int64_t *out) {
    ws_bytes b;
    return decode_i64(ws_map_get(name, key, key_len, &b), b, "map get", name, out);
}

int ws_map_put_i64(const char *name, const void *key, size_t key_len, int64_t v) {
    uint8_t b[8];
    ws_i64_encode(b, v);
    return ws_map_put(name, key, key_len, b, sizeof b);
}

/* -------------------------------------------------- state declarations */

/* One pending state_declare call; name is a malloc'd copy. */
typedef struct declaration {
    char *name;
    size_t name_len;
    int32_t version;
    int64_t ttl_ms;
    int32_t flags;
    ws_migrate_fn migrate;
} declaration;

/* The declarations of the running ws_operator_init, in declaration order;
 * after ws_init sent them, those the host accepted (ws_migrate reads them). */
static declaration *decls;
static size_t n_decls, cap_decls;

/* in_init is set while ws_operator_init runs: only then are declarations taken. */
static int in_init;

/*
 * declare_error holds the reason of the first bad declaration of this
 * ws_operator_init, so that ws_init fails even when the operator ignored
 * the result of ws_declare_state.
 */
static char declare_error[256];

static void free_declarations(void) {
    for (size_t i = 0; i < n_decls; i++) free(decls[i].name);
    free(decls);
    decls = NULL;
    n_decls = cap_decls = 0;
}

/* bad_declaration records why a declaration is refused and returns WS_BAD_ARGUMENT. */
static int bad_declaration(const char *name, const char *why) {
    ws_set_error(WS_BAD_ARGUMENT, "declare state \"%s\": %s", name, why);
    /* The precision bounds the copy: declare_error is shorter than last_error. */
    if (in_init && declare_error[0] == 0)
        snprintf(declare_error, sizeof declare_error, "%.*s", (int)sizeof declare_error - 1, last_error);
    return WS_BAD_ARGUMENT;
}

/* declare_args turns options into state_declare's ttl_ms and flags; 0 or WS_BAD_ARGUMENT. */
static int declare_args(const char *name, const ws_state_options *o, int64_t *ttl_ms, int32_t *flags) {
    const ws_ttl *t = &o->ttl;
    *ttl_ms = WS_TTL_UNSET;
    *flags = 0;
    if (t->ms < 0) return bad_declaration(name, "negative ttl.ms; use no_ttl for a state that never expires");
    if ((unsigned)t->update > WS_TTL_ON_READ_AND_WRITE || (unsigned)t->visibility > WS_TTL_RETURN_EXPIRED_IF_NOT_CLEANED ||
        (unsigned)t->time > WS_TTL_EVENT_TIME)
        return bad_declaration(name, "ttl.update, ttl.visibility or ttl.time is not one of its WS_TTL_* values");
    if (o->no_ttl) {
        *ttl_ms = WS_TTL_NEVER;
        return WS_OK;
    }
    if (t->ms == 0) return WS_OK;
    *ttl_ms = t->ms;
    if (t->update == WS_TTL_ON_READ_AND_WRITE) *flags |= WS_DECLARE_READ_AND_WRITE;
    if (t->visibility == WS_TTL_RETURN_EXPIRED_IF_NOT_CLEANED) *flags |= WS_DECLARE_RETURN_EXPIRED;
    if (t->time == WS_TTL_EVENT_TIME) *flags |= WS_DECLARE_EVENT_TIME;
    return WS_OK;
}

/* find_declaration returns the pending declaration of name, or NULL. */
static declaration *find_declaration(const char *name, size_t n) {
    for (size_t i = 0; i < n_decls; i++)
        if (decls[i].name_len == n && memcmp(decls[i].name, name, n) == 0) return &decls[i];
    return NULL;
}

/* new_declaration appends an entry holding a copy of name; NULL without memory. */
static declaration *new_declaration(const char *name, size_t n) {
    if (n_decls == cap_decls) {
        size_t cap = cap_decls ? 2 * cap_decls : 8;
        declaration *d = realloc(decls, cap * sizeof *d);
        if (d == NULL) return NULL;
        decls = d;
        cap_decls = cap;
    }
    char *copy = malloc(n + 1);
    if (copy == NULL) return NULL;
    memcpy(copy, name, n + 1);
    decls[n_decls] = (declaration){.name = copy, .name_len = n};
    return &decls[n_decls++];
}

int ws_declare_state(const char *name, ws_state_options opts) {
    if (name == NULL) return bad_declaration("(null)", "the name is NULL");
    if (!in_init)
        return ws_set_error(WS_BAD_ARGUMENT,
                            "declare state \"%s\": outside ws_operator_init; the host takes "
                            "declarations only while the operator starts",
                            name);
    int64_t ttl_ms;
    int32_t flags;
    int rc = declare_args(name, &opts, &ttl_ms, &flags);
    if (rc < 0) return rc;
    size_t n = strlen(name);
    declaration *d = find_declaration(name, n);
    if (d == NULL && (d = new_declaration(name, n)) == NULL) {
        ws_set_error(WS_NO_MEMORY, "declare state \"%s\": no memory", name);
        if (declare_error[0] == 0)
            snprintf(declare_error, sizeof declare_error, "%.*s", (int)sizeof declare_error - 1, last_error);
        return WS_NO_MEMORY;
    }
    /* The host checks the version: its refusal names the state (send_declarations). */
    d->version = opts.version == 0 ? 1 : opts.version;
    d->ttl_ms = ttl_ms;
    d->flags = opts.migrate != NULL ? flags | WS_DECLARE_MIGRATES : flags;
    d->migrate = opts.migrate;
    return WS_OK;
}

/*
 * send_declarations hands the pending declarations to the host, keeping
 * them for ws_migrate. A refusal is logged with the state's name and
 * forgets them all: GUEST_INTERNAL.
 */
static int32_t send_declarations(void) {
    int32_t rc = WS_OK;
    for (size_t i = 0; i < n_decls && rc == WS_OK; i++) {
        const declaration *d = &decls[i];
        int32_t c = ws_host_state_declare(d->name, d->name_len, d->version, d->ttl_ms, d->flags);
        if (c == WS_OK) continue;
        ws_logf(WS_LOG_ERROR,
                "wasmstream: the host refused the declaration of state \"%.*s\" (version %d, "
                "ttl_ms %lld, flags %d): %s: the host takes names of 1..1024 bytes without NUL, "
                "versions of 1 or more and ttl_ms of -1 or more",
                (int)(d->name_len > 1100 ? 1100 : d->name_len), d->name, (int)d->version,
                (long long)d->ttl_ms, (int)d->flags, ws_code_name(c));
        rc = WS_GUEST_INTERNAL;
    }
    if (rc != WS_OK) free_declarations();
    return rc;
}

/* ---------------------------------------------------------------- dedup */

int ws_dedup_declare(const char *name, int64_t ttl_ms) {
    if (name != NULL && ttl_ms < 1) return bad_declaration(name, "a dedup set's ttl_ms must be 1 or more");
    return ws_declare_state(name, (ws_state_options){.ttl = {.ms = ttl_ms}});
}

int ws_dedup_is_duplicate(const char *name, const void *id, size_t id_len) {
    static const uint8_t seen = 1;
    ws_bytes b;
    int rc = ws_map_get(name, id, id_len, &b);
    if (rc != 0) return rc; /* 1: seen within the TTL; < 0: an error */
    rc = ws_map_put(name, id, id_len, &seen, 1);
    return rc < 0 ? rc : 0;
}

/* ------------------------------------------------------ headers, emit */

ws_header ws_header_str(const char *name, const char *value) {
    return (ws_header){{(const uint8_t *)name, strlen(name)}, {(const uint8_t *)value, strlen(value)}};
}

ws_header ws_header_bytes(const char *name, const void *value, size_t value_len) {
    return (ws_header){{(const uint8_t *)name, strlen(name)}, {(const uint8_t *)value, value_len}};
}

/*
 * Emitted headers are encoded in a static buffer, or a malloc'd one when
 * they do not fit; a large one is released after the record.
 */
#define HDR_STATIC 512
static uint8_t hdr_static[HDR_STATIC];
static uint8_t *hdr_buf = hdr_static;
static size_t hdr_cap = HDR_STATIC;

static void release_headers(void) {
    if (hdr_cap > SCRATCH_KEEP) {
        free(hdr_buf);
        hdr_buf = hdr_static;
        hdr_cap = HDR_STATIC;
    }
}

/* encode_headers encodes hs into hdr_buf and sets *len; 0 without memory. */
static int encode_headers(const ws_header *hs, size_t n, size_t *len) {
    size_t need = 0;
    for (size_t i = 0; i < n; i++) need += 8 + hs[i].name.len + hs[i].value.len;
    if (need > hdr_cap) {
        uint8_t *p = malloc(need);
        if (p == NULL) return 0;
        if (hdr_buf != hdr_static) free(hdr_buf);
        hdr_buf = p;
        hdr_cap = need;
    }
    uint8_t *p = hdr_buf;
    for (size_t i = 0; i < n; i++) {
        const ws_bytes *f[2] = {&hs[i].name, &hs[i].value};
        for (int k = 0; k < 2; k++) {
            put_u32(p, (uint32_t)f[k]->len);
            if (f[k]->len > 0) memcpy(p + 4, f[k]->ptr, f[k]->len);
            p += 4 + f[k]->len;
        }
    }
    *len = need;
    return 1;
}

int ws_emit_raw(const void *output, size_t output_len, const void *key, size_t key_len,
                const void *value, size_t value_len, const void *headers, size_t headers_len) {
    int32_t rc = ws_host_emit(output, output_len, key, key_len, value, value_len, headers, headers_len);
    return rc < 0 ? host_error(rc, "emit to", output, output_len) : WS_OK;
}

int ws_emit(const char *output, const void *key, size_t key_len, const void *value,
            size_t value_len, const ws_header *headers, size_t n_headers) {
    size_t hdr_len;
    if (!encode_headers(headers, n_headers, &hdr_len))
        return ws_set_error(WS_NO_MEMORY, "emit to \"%s\": no memory to encode %zu headers", output,
                            n_headers);
    return ws_emit_raw(output, strlen(output), key, key_len, value, value_len, hdr_buf, hdr_len);
}

/* ------------------------------------------------------ input headers */

ws_header_iter ws_record_headers(const ws_record *r) {
    return (ws_header_iter){r->headers.ptr, r->headers.ptr + r->headers.len};
}

/* cut reads one length-prefixed field at *p; 0 when it runs past end. */
static int cut(const uint8_t **p, const uint8_t *end, ws_bytes *field) {
    if ((size_t)(end - *p) < 4) return 0;
    uint32_t n = get_u32(*p);
    if (n > (size_t)(end - *p) - 4) return 0;
    *field = (ws_bytes){*p + 4, n};
    *p += 4 + n;
    return 1;
}

int ws_header_next(ws_header_iter *it, ws_bytes *name, ws_bytes *value) {
    const uint8_t *p = it->p;
    if (p == NULL || p >= it->end || !cut(&p, it->end, name) || !cut(&p, it->end, value)) {
        it->p = it->end;
        return 0;
    }
    it->p = p;
    return 1;
}

int ws_record_header(const ws_record *r, const char *name, ws_bytes *value) {
    ws_header_iter it = ws_record_headers(r);
    ws_bytes n;
    while (ws_header_next(&it, &n, value))
        if (ws_bytes_eq_str(n, name)) return 1;
    *value = (ws_bytes){NULL, 0};
    return 0;
}

/* headers_valid checks that b is a complete header list. */
static int headers_valid(ws_bytes b) {
    const uint8_t *p = b.ptr, *end = b.ptr + b.len;
    ws_bytes name, value;
    while (p < end)
        if (!cut(&p, end, &name) || !cut(&p, end, &value)) return 0;
    return 1;
}

/* ------------------------------------------------------------ ws_alloc */

/*
 * The buffer handed to the host. It is the only buffer ws_alloc ever gives
 * out: a new call frees it and allocates a bigger one, since the host never
 * touches the old one again (ABI.md 3.4).
 */
static uint8_t *alloc_buf;
static size_t alloc_cap;
#define ALLOC_MIN (64 * 1024)

WS_EXPORT("ws_alloc") uint8_t *ws_export_alloc(uint32_t size) {
    if (alloc_buf == NULL || size > alloc_cap) {
        size_t want = size > ALLOC_MIN ? size : ALLOC_MIN;
        if (want < 2 * alloc_cap) want = 2 * alloc_cap; /* slowly growing batches */
        free(alloc_buf);
        alloc_buf = malloc(want);
        if (alloc_buf == NULL && want > size) alloc_buf = malloc(want = size);
        /* Out of memory: trap, so that the host reports the memory limit. */
        if (alloc_buf == NULL) __builtin_trap();
        alloc_cap = want;
    }
    return alloc_buf;
}

/* in_alloc_buf reports whether [p, p+n) lies in the ws_alloc buffer. */
static int in_alloc_buf(const uint8_t *p, uint32_t n) {
    return alloc_buf != NULL && p >= alloc_buf && (size_t)(p - alloc_buf) <= alloc_cap &&
           n <= alloc_cap - (size_t)(p - alloc_buf);
}

/* --------------------------------------------------- ws_init, ws_process */

WS_EXPORT("ws_abi_version") int32_t ws_export_abi_version(void) {
    return WS_ABI_VERSION;
}

/* The default ws_operator_init accepts any config. */
__attribute__((weak)) int ws_operator_init(const uint8_t *cfg, size_t len) {
    (void)cfg;
    (void)len;
    return WS_OK;
}

/* ready is set by a successful ws_init; ws_process refuses to run before. */
static int ready;

static int32_t internal_error(const char *msg) {
    ws_logf(WS_LOG_ERROR, "wasmstream: %s", msg);
    return WS_GUEST_INTERNAL;
}

/* log_failure logs why a user function failed, with or without a message. */
static void log_failure(const char *what, const char *outcome, int rc) {
    if (last_error[0] != 0)
        ws_logf(WS_LOG_ERROR, "wasmstream: %s failed, %s: %s", what, outcome, last_error);
    else
        ws_logf(WS_LOG_ERROR, "wasmstream: %s returned %d (%s) without a message, %s", what, rc,
                ws_code_name(rc), outcome);
}

WS_EXPORT("ws_init") int32_t ws_export_init(const uint8_t *cfg, uint32_t len) {
    if (len > 0 && !in_alloc_buf(cfg, len))
        return internal_error("ws_init: config bytes lie outside the buffer from ws_alloc");
    last_error[0] = 0;
    declare_error[0] = 0;
    free_declarations();
    in_init = 1;
    int rc = ws_operator_init(len > 0 ? cfg : NULL, len);
    in_init = 0;
    if (rc != WS_OK) {
        free_declarations();
        log_failure("ws_operator_init", "the config is rejected", rc);
        return rc == WS_GUEST_INTERNAL ? WS_GUEST_INTERNAL : WS_GUEST_CONFIG;
    }
    if (declare_error[0] != 0) {
        free_declarations();
        ws_logf(WS_LOG_ERROR, "wasmstream: ws_operator_init made a bad declaration: %s", declare_error);
        return WS_GUEST_INTERNAL;
    }
    rc = send_declarations();
    ready = rc == WS_OK;
    return rc;
}

/* ----------------------------------------------------------- ws_migrate */

/* The value of the last migration: the host reads it after ws_migrate
 * returned, so it lives until the next call. */
static uint8_t *migrated_buf;
static size_t migrated_len, migrated_cap;
static int migrated_set;

int ws_migrated(const void *value, size_t len) {
    if (len > migrated_cap) {
        uint8_t *b = realloc(migrated_buf, len);
        if (b == NULL) return ws_set_error(WS_NO_MEMORY, "ws_migrated: no memory for %zu bytes", len);
        migrated_buf = b;
        migrated_cap = len;
    }
    if (len > 0) memcpy(migrated_buf, value, len);
    migrated_len = len;
    migrated_set = 1;
    return WS_OK;
}

/* run_migration calls d's migration on one stored value; 0, WS_NOT_FOUND or a failure. */
static int run_migration(const declaration *d, ws_bytes name, int32_t from_version, ws_bytes old) {
    last_error[0] = 0;
    migrated_set = 0;
    int rc = d->migrate(name, from_version, old);
    release_scratch();
    if (rc == WS_OK && !migrated_set)
        rc = ws_set_error(WS_GUEST_INTERNAL, "the migration returned 0 without calling ws_migrated");
    return rc;
}

/* describe_state names the state of a stored name, and the entry of a map, for log lines. */
static const char *describe_state(const uint8_t *name, uint32_t name_len, int base) {
    static char text[WS_MAX_STATE_NAME_LEN + 32];
    if ((uint32_t)base == name_len)
        snprintf(text, sizeof text, "state \"%.*s\"", base, (const char *)name);
    else
        snprintf(text, sizeof text, "state \"%.*s\" (entry \"%.*s\")", base, (const char *)name,
                 (int)(name_len - (uint32_t)base - 1), (const char *)name + base + 1);
    return text;
}

WS_EXPORT("ws_migrate") int64_t ws_export_migrate(const uint8_t *name, uint32_t name_len, int32_t from_version,
                                                  const uint8_t *val, uint32_t val_len) {
    if (!ready) return internal_error("ws_migrate called before a successful ws_init");
    if (!in_alloc_buf(name, name_len) || !in_alloc_buf(val, val_len))
        return internal_error("ws_migrate: the name or the value lies outside the buffer from ws_alloc");
    const uint8_t *zero = memchr(name, 0, name_len);
    int base = (int)(zero != NULL ? (size_t)(zero - name) : name_len);
    const declaration *d = find_declaration((const char *)name, (size_t)base);
    if (d == NULL || d->migrate == NULL) {
        ws_logf(WS_LOG_ERROR,
                "wasmstream: no migration declared for %s (ws_state_options.migrate) but the host asked "
                "to migrate it from version %d",
                describe_state(name, name_len, base), (int)from_version);
        return WS_GUEST_INTERNAL;
    }
    int rc = run_migration(d, (ws_bytes){name, name_len}, from_version, (ws_bytes){val, val_len});
    if (rc == WS_NOT_FOUND) return WS_NOT_FOUND;
    if (rc != WS_OK) {
        ws_logf(WS_LOG_ERROR, "wasmstream: migration of %s from version %d failed: %s",
                describe_state(name, name_len, base), (int)from_version,
                last_error[0] != 0 ? last_error : ws_code_name(rc));
        return WS_GUEST_INTERNAL;
    }
    return (int64_t)migrated_len << 32 | (int64_t)(uintptr_t)migrated_buf;
}

/* Fixed bytes of a batch record: event time, input, three lengths. */
#define RECORD_FIXED 24

/* decode_record reads the record at *p into r; 0 when it is malformed. */
static int decode_record(const uint8_t **p, const uint8_t *end, ws_record *r) {
    const uint8_t *q = *p;
    if ((size_t)(end - q) < 12) return 0;
    r->event_time_ns = (int64_t)((uint64_t)get_u32(q) | (uint64_t)get_u32(q + 4) << 32);
    r->input = get_u32(q + 8);
    q += 12;
    if (!cut(&q, end, &r->key) || !cut(&q, end, &r->value) || !cut(&q, end, &r->headers)) return 0;
    if (!headers_valid(r->headers)) return 0;
    *p = q;
    return 1;
}

/* process_one runs the user's function on r; 0 or the ws_process result. */
static int32_t process_one(const ws_record *r) {
    last_error[0] = 0;
    int rc = ws_operator_process(r);
    release_scratch();
    release_headers();
    if (rc == WS_OK) return WS_OK;
    log_failure("ws_operator_process", "the record goes to dead letters", rc);
    return rc == WS_GUEST_INTERNAL ? WS_GUEST_INTERNAL : WS_GUEST_RECORD;
}

WS_EXPORT("ws_process") int32_t ws_export_process(const uint8_t *batch, uint32_t len) {
    static char msg[128];
    if (!ready) return internal_error("ws_process called before a successful ws_init");
    if (!in_alloc_buf(batch, len) || len < 4)
        return internal_error("ws_process: the batch does not lie in the buffer from ws_alloc");
    const uint8_t *p = batch + 4, *end = batch + len;
    uint32_t count = get_u32(batch);
    if ((uint64_t)count * RECORD_FIXED > len - 4)
        return internal_error("ws_process: malformed batch header");
    for (uint32_t i = 0; i < count; i++) {
        ws_record r;
        if (!decode_record(&p, end, &r)) {
            snprintf(msg, sizeof msg, "ws_process: malformed record %u in the batch", (unsigned)i);
            return internal_error(msg);
        }
        if (ws_host_record_next() != 1) {
            snprintf(msg, sizeof msg, "ws_process: the host has no record %u but the batch has it", (unsigned)i);
            return internal_error(msg);
        }
        int32_t rc = process_one(&r);
        if (rc != WS_OK) return rc;
    }
    if (p != end) return internal_error("ws_process: trailing bytes after the last record of the batch");
    return WS_OK;
}
