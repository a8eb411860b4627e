/*
 * wasmstream_testing.h - unit-test a C operator natively, with the host's
 * C compiler, against a fake of the wasmstream host (the C counterpart of
 * the Go SDK's sdktest and the Rust SDK's testing module).
 *
 * Build the operator, the SDK and this harness for the machine you are on,
 * with a test program that has its own main:
 *
 *     cc -std=c11 -I sdk/c -I sdk/c/testing -o operator_test \
 *         test/operator_test.c src/operator.c sdk/c/wasmstream.c \
 *         sdk/c/wasmstream_json.c sdk/c/testing/wasmstream_testing.c
 *     ./operator_test
 *
 * Natively, wasmstream.c's host imports are the functions of
 * wasmstream_testing.c, and the harness calls the SDK's exports (ws_alloc,
 * ws_init, ws_process) as the host does: records are encoded into an ABI
 * batch (abi/ABI.md 5.1) and decoded by the SDK, so the operator runs the
 * same code as in the module.
 *
 *     wst_init(NULL, 0, NULL);                      // ws_init, default options
 *     wst_record r = wst_rec("acct-1", "{\"account\":\"acct-1\",\"cents\":5}");
 *     wst_process(&r, 1);                           // one batch
 *     int64_t total;
 *     wst_state_i64("acct-1", "total", &total);     // 1: found
 *     wst_output_at(0)->value;                      // what the record emitted
 *
 * The fake host checks every call as abi/ABI.md specifies: name lengths
 * (1..1024, outputs 1..255), wired outputs, limits.max_value_bytes (state
 * values and each emitted key, value and header list),
 * limits.max_emits_per_record, well-formed header lists, state_declare only
 * in ws_init, and NO_RECORD for record, state, emit and event-time calls
 * outside a record. A call the real host treats as fatal aborts the batch:
 * wst_process returns WST_ABORTED and wst_abort_reason() says why.
 *
 * A batch behaves as on the host (ABI.md 7.3): its state writes and emits
 * count only when the whole batch succeeds; a record whose
 * ws_operator_process fails (GUEST_RECORD) becomes a dead letter and the
 * batch runs again without it. Log lines are kept as the guest writes them,
 * of every run.
 *
 * What differs from the real host: no checkpoints, no TTL expiry, no
 * deadline, no ws_migrate (test a migration function by calling it), and a
 * crash of the operator crashes the test program. The harness and the SDK
 * keep global state: one harness per process, not thread-safe.
 */
#ifndef WASMSTREAM_TESTING_H
#define WASMSTREAM_TESTING_H

#include <stddef.h>
#include <stdint.h>

#include "wasmstream.h"

/* wst_process's result when the fake host stopped the batch as the real host would (a fatal call). */
#define WST_ABORTED (-1000)

/* How the fake host is set up, as the pipeline file would. Zero fields take the defaults. */
typedef struct wst_options {
    /* The output names the operator may emit to, NULL-terminated; NULL: {"out"}. */
    const char *const *outputs;
    /* limits.max_value_bytes; 0: 1 MiB. */
    size_t max_value_bytes;
    /* limits.max_emits_per_record; 0: 64. */
    size_t max_emits_per_record;
    /* What processing_time returns, Unix nanoseconds. */
    int64_t processing_time_ns;
} wst_options;

/* An input record. The bytes are copied into the batch: they may live on the stack. */
typedef struct wst_record {
    const void *key;
    size_t key_len;
    const void *value;
    size_t value_len;
    /* An encoded header list (abi/ABI.md 5.2), or NULL; wst_headers builds one. */
    const void *headers;
    size_t headers_len;
    int64_t event_time_ns;
    uint32_t input; /* the index of the record's input in the operator's inputs */
} wst_record;

/* wst_rec is a record of a C-string key and value, no headers, event time 0, input 0. */
wst_record wst_rec(const char *key, const char *value);

/* One emit of a committed batch; the bytes stay valid until wst_clear or wst_reset. */
typedef struct wst_output {
    ws_bytes output;
    ws_bytes key;
    ws_bytes value;
    ws_bytes headers; /* encoded header list; read it with wst_output_header */
    size_t record;    /* the index in the batch of the record that emitted it */
} wst_output;

/* A record the operator rejected. */
typedef struct wst_dead_letter {
    size_t record;      /* its index in the batch given to wst_process */
    int code;           /* what ws_process returned: WS_GUEST_RECORD */
    const char *reason; /* the SDK's last error log line for it, "" when none */
} wst_dead_letter;

/* One log line of the guest. */
typedef struct wst_log_line {
    ws_level level;
    const char *msg;
    long record; /* index in the batch of the current record; -1 outside a record */
} wst_log_line;

/* A state declaration the operator made in ws_init (abi/ABI.md 6.10). */
typedef struct wst_declaration {
    const char *name;
    int32_t version;
    int64_t ttl_ms;
    int32_t flags;
} wst_declaration;

/* wst_init resets the harness (state included), applies opts (NULL: defaults) and calls ws_init
 * with the config bytes. It returns what ws_init returned: 0, WS_GUEST_CONFIG when the operator
 * rejected the config, or another negative code. */
int wst_init(const void *config, size_t config_len, const wst_options *opts);

/* wst_process runs records as one batch (ws_process): 0 when the batch completed, the records the
 * operator rejected being dead letters; WST_ABORTED after a fatal host call; or the guest's
 * failure code (WS_GUEST_INTERNAL, ...). Outputs, dead letters and logs add up over calls. */
int wst_process(const wst_record *records, size_t n);

/* Committed outputs, dead letters, logs and declarations, in order. */
size_t wst_outputs(void);
const wst_output *wst_output_at(size_t i);
size_t wst_dead_letters(void);
const wst_dead_letter *wst_dead_letter_at(size_t i);
size_t wst_logs(void);
const wst_log_line *wst_log_at(size_t i);
size_t wst_declarations(void);
const wst_declaration *wst_declaration_at(size_t i);

/* wst_abort_reason says why the last wst_process returned WST_ABORTED ("" otherwise). */
const char *wst_abort_reason(void);

/* wst_output_header finds the first value of header name in an output: 1 and *value, or 0. */
int wst_output_header(const wst_output *o, const char *name, ws_bytes *value);

/* wst_clear forgets the outputs, dead letters and logs, keeping the state. */
void wst_clear(void);

/* wst_state reads the committed state name (a raw name: for a map entry use wst_map_state) of
 * key: 1 and *value (valid until the state changes), or 0 when absent. */
int wst_state(const char *key, const char *name, ws_bytes *value);
/* wst_state_i64 reads an int64 state as ws_value_put_i64 wrote it: 1 and *v, or 0. */
int wst_state_i64(const char *key, const char *name, int64_t *v);
/* wst_map_state reads the entry map_key of the map state name of key: 1 and *value, or 0. */
int wst_map_state(const char *key, const char *name, const char *map_key, ws_bytes *value);
/* wst_set_state stores a committed value, as a restored checkpoint would. */
void wst_set_state(const char *key, const char *name, const void *value, size_t len);
/* wst_state_len is the number of committed state entries. */
size_t wst_state_len(void);

/* wst_headers encodes n name/value C-string pairs into buf (abi/ABI.md 5.2) and returns the
 * length, or 0 when it does not fit in cap. */
size_t wst_headers(uint8_t *buf, size_t cap, const char *const *pairs, size_t n);

#endif /* WASMSTREAM_TESTING_H */
