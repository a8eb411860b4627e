/*
 * risk.c - the payment-risk operator in C: a running total of cents per
 * account, deduplicated by event id. It is the `counter` reference
 * operator of conformance/OPERATORS.md and behaves byte for byte like the
 * Go example in ../operator.
 *
 * Input records are keyed by account and carry JSON such as
 *
 *     {"account":"acct-47","event":"evt-47","cents":1200}
 *
 * An accepted event is emitted to output "out", keyed by account, as
 *
 *     {"account":"acct-47","event":"evt-47","cents":1200,"total":1200}
 *
 * with an "event-id" header. A redelivered event id produces no output and
 * a debug log line. A record that is not such JSON, lacks a field, has
 * negative cents or more than the configured maximum, or whose account is
 * not its key fails, and the host sends it to the dead-letter subject.
 *
 * Config (JSON, optional): {"max_cents": N} rejects events above N cents;
 * 0 or no config means no limit.
 */
#include <stdint.h>
#include <string.h>

#include "payment.h"
#include "wasmstream.h"
#include "wasmstream_json.h"

/* max_cents rejects events above it; 0 means no limit. */
static int64_t max_cents;

static int blank(const uint8_t *b, size_t n) {
    for (size_t i = 0; i < n; i++)
        if (b[i] != ' ' && b[i] != '\t' && b[i] != '\n' && b[i] != '\r') return 0;
    return 1;
}

/* ws_operator_init reads the optional config. Unknown fields are errors, so
 * that a misspelt "max_cents" does not silently turn the limit off. */
int ws_operator_init(const uint8_t *cfg, size_t len) {
    ws_json_field f[] = {{.name = "max_cents", .type = WS_JSON_INT}};
    if (blank(cfg, len)) return 0;
    if (ws_json_fields(cfg, len, f, 1, WS_JSON_REJECT_UNKNOWN) < 0)
        return ws_fail("payment-risk config: want {\"max_cents\": N}: %s", ws_last_error());
    if (f[0].found && f[0].num < 0)
        return ws_fail("payment-risk config: max_cents is %lld, want 0 (no limit) or more",
                       (long long)f[0].num);
    max_cents = f[0].found ? f[0].num : 0;
    return 0;
}

/* out holds the emitted JSON; reused for every record. */
static ws_buf out;

/* accept adds p to the account's total, remembers its id and emits the result. */
static int accept(const payment *p) {
    static const uint8_t seen = 1;
    int64_t total;
    int rc = ws_value_get_i64("total", &total);
    if (rc < 0) return rc;
    if (p->cents > INT64_MAX - total)
        return ws_fail("bad payment event: event " WS_BYTES_FMT ": total of account " WS_BYTES_FMT
                       " would overflow",
                       WS_BYTES_ARG(p->event), WS_BYTES_ARG(p->account));
    total += p->cents;
    if ((rc = ws_value_put_i64("total", total)) < 0) return rc;
    if ((rc = ws_map_put("seen", p->event.ptr, p->event.len, &seen, 1)) < 0) return rc;

    ws_buf_reset(&out);
    ws_buf_append_str(&out, "{\"account\":");
    ws_buf_append_json_string(&out, p->account.ptr, p->account.len);
    ws_buf_append_str(&out, ",\"event\":");
    ws_buf_append_json_string(&out, p->event.ptr, p->event.len);
    ws_buf_append_str(&out, ",\"cents\":");
    ws_buf_append_i64(&out, p->cents);
    ws_buf_append_str(&out, ",\"total\":");
    ws_buf_append_i64(&out, total);
    ws_buf_append_str(&out, "}");
    if (out.failed) return ws_set_error(WS_NO_MEMORY, "no memory for the output of event " WS_BYTES_FMT, WS_BYTES_ARG(p->event));
    return ws_emit("out", p->account.ptr, p->account.len, out.ptr, out.len,
                   WS_HEADERS(ws_header_bytes("event-id", p->event.ptr, p->event.len)));
}

/* ws_operator_process adds an event to its account's total once, however
 * often it is delivered, and emits the new total. */
int ws_operator_process(const ws_record *r) {
    payment p;
    ws_bytes dup;
    int rc = parse_payment(r->value.ptr, r->value.len, max_cents, &p);
    if (rc < 0) return rc;
    if (p.account.len != r->key.len || memcmp(p.account.ptr, r->key.ptr, r->key.len) != 0)
        /* State is scoped by the record key: a total kept under another key
         * would be wrong without any error, so refuse the record. */
        return ws_fail("bad payment event: event " WS_BYTES_FMT ": account \"" WS_BYTES_FMT
                       "\" does not match the record key \"" WS_BYTES_FMT "\"",
                       WS_BYTES_ARG(p.event), WS_BYTES_ARG(p.account), WS_BYTES_ARG(r->key));
    rc = ws_map_get("seen", p.event.ptr, p.event.len, &dup);
    if (rc < 0) return rc;
    if (rc == 1) {
        ws_debugf("duplicate event " WS_BYTES_FMT " for account " WS_BYTES_FMT " ignored",
                  WS_BYTES_ARG(p.event), WS_BYTES_ARG(p.account));
        return 0;
    }
    return accept(&p);
}
