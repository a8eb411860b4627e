/*
 * counter.c - the `counter` reference operator of conformance/OPERATORS.md.
 *
 * `counter` is the payment-risk operator by definition, so this file is
 * that example's source: one implementation, checked by the conformance
 * suite and run by the example. Build it with
 * examples/payment-risk/c/payment.c and the SDK (scripts/build-c.sh).
 */
#include "../../../examples/payment-risk/c/risk.c"
