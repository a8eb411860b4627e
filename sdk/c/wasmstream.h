/*
 * wasmstream.h - the C SDK for wasmstream operators (ABI version 1,
 * revision 1.2).
 *
 * An operator is a WebAssembly reactor module. This SDK (wasmstream.c)
 * defines the module's four exports (ws_abi_version, ws_alloc, ws_init,
 * ws_process), the optional ws_migrate of revision 1.2 (it runs the
 * migrations declared in ws_state_options) and wraps the host imports of abi/ABI.md. You write two
 * functions:
 *
 *     int ws_operator_init(const uint8_t *cfg, size_t len);   optional
 *     int ws_operator_process(const ws_record *r);            required
 *
 * and build with
 *
 *     clang-19 --target=wasm32-wasi --sysroot=/usr -mexec-model=reactor -O2 \
 *         -Wl,--strip-debug -I sdk/c -o op.wasm op.c sdk/c/wasmstream.c
 *
 * Conventions used throughout:
 *   - Functions that can fail return an int: 0 (or a positive count or flag)
 *     on success, a negative WS_* code on failure. On failure they also
 *     record a message (ws_last_error) naming the object, so returning the
 *     code from ws_operator_process is enough to get a useful log line.
 *   - Byte strings are (pointer, length) pairs; nothing needs a NUL except
 *     the parameters typed `const char *`, which are C strings.
 *   - Bytes handed to you (ws_record fields, ws_bytes from a state read,
 *     the config) belong to the SDK or the host: copy what you keep.
 *   - The host copies everything you pass to it: reuse your buffers at once.
 *   - Guests run single-threaded; the SDK keeps its buffers in statics.
 */
#ifndef WASMSTREAM_H
#define WASMSTREAM_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The ABI version this SDK implements; ws_abi_version returns it. */
#define WS_ABI_VERSION 1

/*
 * Result codes. The ABI registry (abi/codes.go, ABI.md section 7) with the
 * same names and values. Host functions return the non-fatal ones; the fatal
 * ones (BAD_POINTER, NO_RECORD, REENTRANT) stop the call in the host and are
 * never seen by a guest, they are listed so that the registry is complete.
 */
#define WS_OK 0
#define WS_NOT_FOUND (-1)       /* state read: no value for this key and name */
#define WS_BAD_POINTER (-2)     /* fatal: a range outside guest memory */
#define WS_BAD_ARGUMENT (-3)    /* name length out of range, malformed headers */
#define WS_NO_RECORD (-4)       /* fatal: state/emit call outside a record */
#define WS_TOO_LARGE (-5)       /* over limits.max_value_bytes */
#define WS_UNKNOWN_OUTPUT (-6)  /* emit to an output the pipeline does not wire */
#define WS_QUOTA_EXCEEDED (-7)  /* over limits.max_emits_per_record */
#define WS_REENTRANT (-8)       /* fatal: host call from inside ws_alloc */
#define WS_GUEST_CONFIG (-100)  /* ws_init: the config was rejected */
#define WS_GUEST_RECORD (-101)  /* ws_process: the current record failed */
#define WS_GUEST_INTERNAL (-102) /* any other guest failure */

/*
 * SDK-local codes. They never cross the ABI: ws_process turns any failure
 * of ws_operator_process into WS_GUEST_RECORD.
 */
#define WS_DECODE (-1000)    /* bytes that do not decode: a state value of
                                the wrong size, malformed JSON */
#define WS_NO_MEMORY (-1001) /* malloc failed: guest memory is at its limit */

/* Limits of ABI v1 (ABI.md section 8). */
#define WS_MAX_STATE_NAME_LEN 1024 /* state names, map entries included */
#define WS_MAX_OUTPUT_NAME_LEN 255

/* ws_code_name returns "NOT_FOUND", "TOO_LARGE", ... or "UNKNOWN_CODE". */
const char *ws_code_name(int code);

/* ---------------------------------------------------------------- bytes */

/* ws_bytes is a read-only byte string. */
typedef struct ws_bytes {
    const uint8_t *ptr;
    size_t len;
} ws_bytes;

/* printf helpers for ws_bytes: ws_infof("key " WS_BYTES_FMT, WS_BYTES_ARG(r->key)). */
#define WS_BYTES_FMT "%.*s"
#define WS_BYTES_ARG(b) (int)(b).len, (const char *)(b).ptr

/* ws_bytes_eq_str reports whether a and the C string s hold the same bytes. */
int ws_bytes_eq_str(ws_bytes a, const char *s);

/* --------------------------------------------------------------- record */

/*
 * ws_record is the record being processed. It points into the batch the
 * host wrote, which the next batch overwrites: copy what you keep.
 */
typedef struct ws_record {
    ws_bytes key;           /* the key state calls address */
    ws_bytes value;         /* the payload */
    ws_bytes headers;       /* encoded header list; read it with ws_header_next */
    int64_t event_time_ns;  /* Unix nanoseconds, from the source message */
    uint32_t input;         /* index into the operator's inputs in the pipeline file */
} ws_record;

/* ws_header_iter walks an encoded header list (ABI.md section 5.2). */
typedef struct ws_header_iter {
    const uint8_t *p;
    const uint8_t *end;
} ws_header_iter;

/*
 * ws_record_headers returns an iterator over r's headers, in the order of its
 * header list: the engine sorts a message's headers by name (byte order) and
 * keeps the order of one name's values (ABI.md section 5.2).
 */
ws_header_iter ws_record_headers(const ws_record *r);

/*
 * ws_header_next stores the next header and returns 1, or returns 0 at the
 * end. The SDK validated the list before ws_operator_process, so a record's
 * iterator never sees a malformed list (it would return 0).
 */
int ws_header_next(ws_header_iter *it, ws_bytes *name, ws_bytes *value);

/* ws_record_header finds the first header called name: 1 found, 0 not. */
int ws_record_header(const ws_record *r, const char *name, ws_bytes *value);

/* ------------------------------------------------------- your operator */

/*
 * ws_operator_init is called once per instance with the operator's config
 * bytes from the pipeline file (cfg is NULL when len is 0). The bytes are
 * valid only during the call: copy what you keep. Return 0 when ready.
 * WS_GUEST_INTERNAL is passed on as it is; any other non-zero result
 * rejects the config (WS_GUEST_CONFIG): the instance fails to start and the
 * message recorded with ws_fail is logged at error level.
 *
 * Optional: the SDK defines a weak version that accepts any config.
 */
int ws_operator_init(const uint8_t *cfg, size_t len);

/*
 * ws_operator_process handles one record. State and emit calls inside it
 * address r->key. Return 0 on success. Anything else fails the record: the
 * SDK logs the recorded message at error level and returns WS_GUEST_RECORD,
 * and the host drops the record's state writes and emits, sends it to the
 * dead-letter subject and runs the rest of the batch again without it.
 * Returning WS_GUEST_INTERNAL instead makes the host also discard this
 * instance and start a fresh one. Do not rely on side effects outside host
 * state: a record may be processed more than once.
 *
 * Required: define it in your operator.
 */
int ws_operator_process(const ws_record *r);

/* --------------------------------------------------------------- errors */

/*
 * ws_fail records a printf-formatted reason for failing the current record
 * (or rejecting the config in ws_operator_init) and returns
 * WS_GUEST_RECORD:  return ws_fail("negative cents %lld", (long long)c);
 */
int ws_fail(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/*
 * ws_set_error records a printf-formatted message and returns code. Both
 * may take ws_last_error() as an argument to add context to a message:
 * return ws_fail("bad event: %s", ws_last_error());
 */
int ws_set_error(int code, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/*
 * ws_last_error returns the message recorded during the current record
 * (or ws_operator_init), "" when none. SDK helpers record one on failure.
 */
const char *ws_last_error(void);

/* ---------------------------------------------------------------- state */

/*
 * State is owned by the host, scoped to the key of the record being
 * processed, and committed only when the batch succeeds. Call these only
 * from ws_operator_process (elsewhere the host stops the guest: NO_RECORD).
 *
 * Reads return 1 (found; *out points to an SDK buffer valid until the next
 * state read), 0 (absent) or a negative code. Writes and deletes return 0 or
 * a negative code (WS_BAD_ARGUMENT for a name outside 1..1024 bytes,
 * WS_TOO_LARGE for a value over limits.max_value_bytes).
 */

/* Raw state: names are any 1..1024 bytes. */
int ws_state_get(const void *name, size_t name_len, ws_bytes *out);
int ws_state_put(const void *name, size_t name_len, const void *value, size_t value_len);
int ws_state_delete(const void *name, size_t name_len);

/* Value state: one value per key under a C-string name. */
int ws_value_get(const char *name, ws_bytes *out);
int ws_value_put(const char *name, const void *value, size_t value_len);
int ws_value_delete(const char *name);

/*
 * Typed value state: a signed 64-bit integer stored as 8 little-endian
 * bytes (the Go SDK's Int64Codec). Get sets *out to 0 when absent and fails
 * with WS_DECODE when the stored value is not 8 bytes.
 */
int ws_value_get_i64(const char *name, int64_t *out);
int ws_value_put_i64(const char *name, int64_t v);

/*
 * Map state: a map per key, stored as one state entry per map key named
 * name "\0" map_key (the same layout as every SDK). name + 1 + key_len must
 * not exceed 1024 bytes (else WS_BAD_ARGUMENT). The ABI has no scan: a map
 * cannot be listed.
 */
int ws_map_get(const char *name, const void *key, size_t key_len, ws_bytes *out);
int ws_map_put(const char *name, const void *key, size_t key_len, const void *value, size_t value_len);
int ws_map_delete(const char *name, const void *key, size_t key_len);
int ws_map_get_i64(const char *name, const void *key, size_t key_len, int64_t *out);
int ws_map_put_i64(const char *name, const void *key, size_t key_len, int64_t v);

/* ws_i64_encode writes v as 8 little-endian bytes; ws_i64_decode reads them. */
void ws_i64_encode(uint8_t out[8], int64_t v);
int64_t ws_i64_decode(const uint8_t in[8]);

/* --------------------------------------------------- state declarations */

/*
 * A module may declare what the host needs to know about a named state
 * (ABI revision 1.1, state_declare, ABI.md section 6.10): the version of its
 * values' layout and its time to live. A state never declared has version 1
 * and the TTL of the pipeline file, if any. What the TTL settings mean, and
 * what a key sees when it returns after its state expired: internal/state/FORMAT.md
 * section 3.1.
 *
 * Declare from ws_operator_init; the SDK hands the declarations to the host
 * when ws_operator_init returns 0, still inside ws_init (the only time the
 * host takes them), and drops them when it fails.
 */

/* Which accesses move a value's expiry. */
typedef enum ws_ttl_update {
    WS_TTL_ON_CREATE_AND_WRITE = 0, /* writes set it (the default) */
    WS_TTL_ON_READ_AND_WRITE = 1    /* reads move it too, so a value in use stays */
} ws_ttl_update;

/* Whether an expired value can still be read. */
typedef enum ws_ttl_visibility {
    WS_TTL_NEVER_RETURN_EXPIRED = 0,         /* it reads as absent (the default) */
    WS_TTL_RETURN_EXPIRED_IF_NOT_CLEANED = 1 /* returned until the host's cleanup removes it */
} ws_ttl_visibility;

/* The clock a TTL counts on. */
typedef enum ws_ttl_time {
    WS_TTL_PROCESSING_TIME = 0, /* the host's clock (the default) */
    WS_TTL_EVENT_TIME = 1       /* the records' event time */
} ws_ttl_time;

/* A time to live. Zero fields are the defaults. */
typedef struct ws_ttl {
    int64_t ms; /* time to live in milliseconds, 1 or more; 0: no TTL (see ws_state_options) */
    ws_ttl_update update;
    ws_ttl_visibility visibility;
    ws_ttl_time time;
} ws_ttl;

/*
 * A migration (ABI revision 1.2, ws_migrate, ABI.md section 4.1): when a
 * module replaces one that wrote the state under an older version (an
 * upgrade), the host calls it once per stored value, after ws_init and
 * before the first record. name is the stored name (for a map entry, the
 * map's name, a zero byte and the entry's key), old the stored value.
 * Return:
 *   0             after ws_migrated(new value): the value is replaced;
 *   WS_NOT_FOUND  the value is deleted;
 *   anything else fails the upgrade (record why with ws_fail): the SDK logs
 *                 the reason naming the state, the host writes nothing and
 *                 the old module keeps running.
 * Only logging and ws_processing_time may be used inside; state calls and
 * emits are refused by the host.
 */
typedef int (*ws_migrate_fn)(ws_bytes name, int32_t from_version, ws_bytes old);

/* ws_migrated sets the new value of the running migration (a copy). Returns
 * 0, or WS_NO_MEMORY. */
int ws_migrated(const void *value, size_t len);

/*
 * What a module declares about one state; zero fields say nothing:
 *
 *     ws_declare_state("total", (ws_state_options){.version = 2, .no_ttl = 1});
 *     ws_declare_state("sessions", (ws_state_options){
 *         .ttl = {.ms = 30 * 60 * 1000, .update = WS_TTL_ON_READ_AND_WRITE}});
 *     ws_declare_state("total", (ws_state_options){.version = 2, .migrate = total_to_v2});
 */
typedef struct ws_state_options {
    int32_t version; /* layout version of the values, 1..2^31-1; 0 means 1. Bump it when
                        the encoding changes. */
    ws_ttl ttl;      /* ttl.ms > 0: expires so, overriding the pipeline file's TTL;
                        ttl.ms == 0: says nothing, the pipeline file decides */
    int no_ttl;      /* non-zero: never expires, even with a TTL in the pipeline file;
                        wins over ttl */
    ws_migrate_fn migrate; /* converts values of older versions (see ws_migrate_fn);
                              NULL: raising version makes the host refuse the upgrade */
} ws_state_options;

/* The raw numbers of state_declare (ABI.md 6.10). */
#define WS_TTL_UNSET 0    /* ttl_ms: the module says nothing */
#define WS_TTL_NEVER (-1) /* ttl_ms: never expires */
#define WS_DECLARE_READ_AND_WRITE 1
#define WS_DECLARE_RETURN_EXPIRED 2
#define WS_DECLARE_EVENT_TIME 4
#define WS_DECLARE_MIGRATES 8 /* set by the SDK when opts.migrate is given */

/*
 * ws_declare_state declares the version and TTL of the state called name
 * (for a map, the map's name: each entry expires on its own). A later
 * declaration of the same name replaces the earlier one. Returns 0, or:
 *   WS_BAD_ARGUMENT  called outside ws_operator_init, a NULL name, a
 *                    negative ttl.ms or an enum value out of range; a bad
 *                    one inside ws_operator_init also fails ws_init with
 *                    GUEST_INTERNAL, even if you ignore the result;
 *   WS_NO_MEMORY     no memory to keep the declaration.
 * The host checks the name (1..1024 bytes) and the version (1 or more) when
 * ws_init sends the declarations: one it refuses fails ws_init with
 * GUEST_INTERNAL after an error line naming the state.
 */
int ws_declare_state(const char *name, ws_state_options opts);

/* ---------------------------------------------------------------- dedup */

/*
 * A dedup set remembers ids per record key for a time, to drop redelivered
 * events. It is a map state whose entries are name "\0" id = 0x01 (the
 * layout of every SDK), declared with a TTL of ttl_ms on create and write,
 * never returning expired entries, in processing time. The TTL must cover
 * the longest time a duplicate can arrive after the original: a later
 * redelivery is processed again.
 *
 *     int ws_operator_init(const uint8_t *cfg, size_t len) {
 *         return ws_dedup_declare("seen", 24 * 3600 * 1000);
 *     }
 *     int ws_operator_process(const ws_record *r) {
 *         int dup = ws_dedup_is_duplicate("seen", r->value.ptr, r->value.len);
 *         if (dup != 0) return dup < 0 ? dup : 0;   // an error, or seen before
 *         return ws_emit("out", r->key.ptr, r->key.len, r->value.ptr, r->value.len, WS_NO_HEADERS);
 *     }
 */

/*
 * ws_dedup_declare declares the dedup set called name with ids living
 * ttl_ms milliseconds (1 or more); call it from ws_operator_init. Returns 0,
 * WS_BAD_ARGUMENT (ttl_ms under 1, or see ws_declare_state) or WS_NO_MEMORY.
 */
int ws_dedup_declare(const char *name, int64_t ttl_ms);

/*
 * ws_dedup_is_duplicate reports whether id was seen for the current
 * record's key within the TTL: 1 when it was; 0 when it was not, and then
 * remembers it (a state write, dropped with the record if it fails); a
 * negative code on failure (WS_BAD_ARGUMENT when name + 1 + id_len is over
 * 1024 bytes). Only from ws_operator_process.
 */
int ws_dedup_is_duplicate(const char *name, const void *id, size_t id_len);

/* ----------------------------------------------------------------- emit */

/* ws_header is one output header: a name and a value, both byte strings. */
typedef struct ws_header {
    ws_bytes name;
    ws_bytes value;
} ws_header;

/* ws_header_str makes a header from two C strings. */
ws_header ws_header_str(const char *name, const char *value);
/* ws_header_bytes makes a header from a C-string name and a byte-string value. */
ws_header ws_header_bytes(const char *name, const void *value, size_t value_len);

/*
 * WS_HEADERS expands to the (array, count) arguments ws_emit takes;
 * WS_NO_HEADERS to none:
 *
 *     ws_emit("out", key, key_len, val, val_len,
 *             WS_HEADERS(ws_header_str("source", "risk"),
 *                        ws_header_bytes("event-id", id.ptr, id.len)));
 */
#define WS_HEADERS(...)                                                                            \
    ((const ws_header[]){__VA_ARGS__}),                                                            \
        (sizeof((const ws_header[]){__VA_ARGS__}) / sizeof(ws_header))
#define WS_NO_HEADERS NULL, 0

/*
 * ws_emit sends a record to output, an output name the pipeline wires to a
 * sink (e.g. "out"), on behalf of the record being processed, with
 * n_headers headers (a name may repeat). The SDK encodes the headers in a
 * buffer of its own. Returns 0, WS_UNKNOWN_OUTPUT, WS_TOO_LARGE,
 * WS_QUOTA_EXCEEDED, WS_BAD_ARGUMENT or WS_NO_MEMORY. A non-empty key is
 * published as header Wasmstream-Key.
 */
int ws_emit(const char *output, const void *key, size_t key_len, const void *value,
            size_t value_len, const ws_header *headers, size_t n_headers);

/* ws_emit_raw is ws_emit with a byte-string output name and an encoded header list. */
int ws_emit_raw(const void *output, size_t output_len, const void *key, size_t key_len,
                const void *value, size_t value_len, const void *headers, size_t headers_len);

/* ------------------------------------------------------------------ log */

/* Log levels of the ABI. */
typedef enum ws_level {
    WS_LOG_TRACE = 0,
    WS_LOG_DEBUG = 1,
    WS_LOG_INFO = 2,
    WS_LOG_WARN = 3,
    WS_LOG_ERROR = 4
} ws_level;

/*
 * Longest formatted log line; longer ones are cut. The host also cuts lines
 * at 4096 bytes and keeps at most 1000 lines per batch.
 */
#define WS_LOG_LINE_MAX 4096

/* ws_log writes the C string msg to the host's log; ws_log_bytes a byte string. */
void ws_log(ws_level level, const char *msg);
void ws_log_bytes(ws_level level, const void *msg, size_t len);

/* ws_logf formats like printf into a fixed buffer and logs the line. */
void ws_logf(ws_level level, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void ws_vlogf(ws_level level, const char *fmt, va_list ap);

#define ws_tracef(...) ws_logf(WS_LOG_TRACE, __VA_ARGS__)
#define ws_debugf(...) ws_logf(WS_LOG_DEBUG, __VA_ARGS__)
#define ws_infof(...) ws_logf(WS_LOG_INFO, __VA_ARGS__)
#define ws_warnf(...) ws_logf(WS_LOG_WARN, __VA_ARGS__)
#define ws_errorf(...) ws_logf(WS_LOG_ERROR, __VA_ARGS__)

/* ----------------------------------------------------------------- time */

/*
 * ws_event_time returns the current record's event time (Unix nanoseconds,
 * as r->event_time_ns); only inside ws_operator_process. Replays see it
 * again: base logic that must replay identically on it.
 */
int64_t ws_event_time(void);

/*
 * ws_processing_time returns the host's clock when the current batch (or
 * ws_init) started, Unix nanoseconds. A guest has no clock of its own.
 */
int64_t ws_processing_time(void);

#ifdef __cplusplus
}
#endif

#endif /* WASMSTREAM_H */
