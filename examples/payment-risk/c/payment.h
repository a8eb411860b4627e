/*
 * payment.h - the payment event of the payment-risk example, shared with
 * the `join` reference operator, which reads the same JSON.
 */
#ifndef PAYMENT_H
#define PAYMENT_H

#include "wasmstream.h"

/* payment is one decoded event; strings point into the record's value. */
typedef struct payment {
    ws_bytes account;
    ws_bytes event;
    int64_t cents;
} payment;

/*
 * parse_payment decodes {"account":"...","event":"...","cents":N} (any
 * field order, other fields ignored) and checks it: account and event are
 * non-empty strings, cents an integer of 0 or more, at most max_cents when
 * max_cents > 0. Returns 0, or a negative code with the reason recorded.
 */
int parse_payment(const uint8_t *value, size_t len, int64_t max_cents, payment *p);

#endif /* PAYMENT_H */
