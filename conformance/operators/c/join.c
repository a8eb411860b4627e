/*
 * join.c - the `join` reference operator of conformance/OPERATORS.md:
 * payments (input 0, the payment-risk JSON) checked against per-account
 * limits (input 1, a decimal integer kept in state `limit` as i64le). A
 * payment is emitted to "out" with the record key and no headers as
 * "<event>,<cents>,<limit>,over" when cents > limit, "...,ok" otherwise,
 * and "<event>,<cents>,none,unknown" when no limit is known. Config is
 * ignored. Build it with examples/payment-risk/c/payment.c.
 */
#include "../../../examples/payment-risk/c/payment.h"
#include "wasmstream.h"
#include "wasmstream_json.h"

/* out holds the emitted text; reused for every record. */
static ws_buf out;

static int set_limit(const ws_record *r) {
    int64_t limit;
    if (ws_parse_i64(r->value.ptr, r->value.len, &limit) < 0)
        return ws_fail("join: bad limit: %s", ws_last_error());
    return ws_value_put_i64("limit", limit);
}

static int check_payment(const ws_record *r) {
    payment p;
    int64_t limit;
    int rc = parse_payment(r->value.ptr, r->value.len, 0, &p);
    if (rc < 0) return rc;
    int found = ws_value_get_i64("limit", &limit);
    if (found < 0) return found;
    ws_buf_reset(&out);
    ws_buf_append(&out, p.event.ptr, p.event.len);
    ws_buf_append_str(&out, ",");
    ws_buf_append_i64(&out, p.cents);
    ws_buf_append_str(&out, ",");
    if (found) {
        ws_buf_append_i64(&out, limit);
        ws_buf_append_str(&out, p.cents > limit ? ",over" : ",ok");
    } else {
        ws_buf_append_str(&out, "none,unknown");
    }
    if (out.failed) return ws_set_error(WS_NO_MEMORY, "join: no memory for the output");
    return ws_emit("out", r->key.ptr, r->key.len, out.ptr, out.len, WS_NO_HEADERS);
}

int ws_operator_process(const ws_record *r) {
    switch (r->input) {
    case 0: return check_payment(r);
    case 1: return set_limit(r);
    default: return ws_fail("join: record on input %u; only inputs 0 (payments) and 1 (limits) exist", (unsigned)r->input);
    }
}
