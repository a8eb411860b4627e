/*
 * dedup.c - the `dedup` reference operator of conformance/OPERATORS.md:
 * the first delivery of each key wins. State `seen` holds one byte 0x01;
 * the first record of a key is emitted to "out" with its key and value and
 * no headers, later ones produce nothing. Config is ignored.
 */
#include "wasmstream.h"

int ws_operator_process(const ws_record *r) {
    static const uint8_t one = 1;
    ws_bytes seen;
    int rc = ws_value_get("seen", &seen);
    if (rc != 0) return rc < 0 ? rc : 0; /* found: a redelivery, nothing to do */
    if ((rc = ws_value_put("seen", &one, 1)) < 0) return rc;
    return ws_emit("out", r->key.ptr, r->key.len, r->value.ptr, r->value.len, WS_NO_HEADERS);
}
