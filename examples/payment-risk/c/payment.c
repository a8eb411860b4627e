/* payment.c - decoding and checking of payment events; see payment.h. */
#include "payment.h"

#include "wasmstream_json.h"

int parse_payment(const uint8_t *value, size_t len, int64_t max_cents, payment *p) {
    ws_json_field f[] = {
        {.name = "account", .type = WS_JSON_STRING},
        {.name = "event", .type = WS_JSON_STRING},
        {.name = "cents", .type = WS_JSON_INT},
    };
    int rc = ws_json_fields(value, len, f, 3, 0);
    if (rc < 0) return ws_fail("bad payment event: %s", ws_last_error());
    /* An empty id is as useless as a missing one: both are refused. */
    if (!f[0].found || f[0].str.len == 0) return ws_fail("bad payment event: missing account");
    if (!f[1].found || f[1].str.len == 0) return ws_fail("bad payment event: missing event id");
    p->account = f[0].str;
    p->event = f[1].str;
    p->cents = f[2].num;
    if (!f[2].found) return ws_fail("bad payment event: event " WS_BYTES_FMT ": missing cents", WS_BYTES_ARG(p->event));
    if (p->cents < 0)
        return ws_fail("bad payment event: event " WS_BYTES_FMT ": negative cents %lld",
                       WS_BYTES_ARG(p->event), (long long)p->cents);
    if (max_cents > 0 && p->cents > max_cents)
        return ws_fail("bad payment event: event " WS_BYTES_FMT ": %lld cents is over max_cents %lld",
                       WS_BYTES_ARG(p->event), (long long)p->cents, (long long)max_cents);
    return 0;
}
