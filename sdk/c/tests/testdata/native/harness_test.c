/*
 * harness_test.c - tests of the C SDK's native harness
 * (sdk/c/testing/wasmstream_testing.h) on counter.c. Exits 1 when a check
 * fails; run by harness_native_test.go.
 */
#include <stdio.h>
#include <string.h>

#include "wasmstream_testing.h"

static int failures;

#define CHECK(cond)                                                        \
    do {                                                                   \
        if (!(cond)) {                                                     \
            fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, __LINE__, #cond); \
            failures++;                                                    \
        }                                                                  \
    } while (0)

static int bytes_are(ws_bytes b, const char *s) { return ws_bytes_eq_str(b, s); }

/* A batch's state, emits and logs; the state carries over to the next batch. */
static void test_counts(void) {
    CHECK(wst_init(NULL, 0, NULL) == 0);
    CHECK(wst_declarations() == 1 && strcmp(wst_declaration_at(0)->name, "count") == 0 &&
          wst_declaration_at(0)->version == 2 && wst_declaration_at(0)->ttl_ms == -1);
    wst_record rs[] = {wst_rec("a", "x"), wst_rec("b", "y"), wst_rec("a", "z")};
    CHECK(wst_process(rs, 3) == 0);
    CHECK(wst_outputs() == 3);
    const wst_output *o = wst_output_at(2);
    ws_bytes n;
    CHECK(bytes_are(o->output, "out") && bytes_are(o->key, "a") && bytes_are(o->value, "2") && o->record == 2);
    CHECK(wst_output_header(o, "n", &n) == 1 && bytes_are(n, "2"));
    CHECK(wst_output_header(o, "m", &n) == 0);
    int64_t count = 0;
    CHECK(wst_state_i64("a", "count", &count) == 1 && count == 2);
    CHECK(wst_state_i64("b", "count", &count) == 1 && count == 1);
    CHECK(wst_state_i64("c", "count", &count) == 0);
    ws_bytes seen;
    CHECK(wst_map_state("a", "seen", "z", &seen) == 1 && bytes_are(seen, "1"));
    CHECK(wst_map_state("a", "seen", "y", &seen) == 0);
    CHECK(wst_state_len() == 2 + 3);
    CHECK(wst_logs() == 3 && wst_log_at(2)->level == WS_LOG_INFO && strcmp(wst_log_at(2)->msg, "count a 2") == 0 &&
          wst_log_at(2)->record == 2);

    wst_clear();
    wst_record more = wst_rec("a", "w");
    CHECK(wst_process(&more, 1) == 0);
    CHECK(wst_outputs() == 1 && bytes_are(wst_output_at(0)->value, "3"));
    CHECK(wst_state_i64("a", "count", &count) == 1 && count == 3);
}

/* A rejected record is a dead letter that leaves no state and no emit; the rest of its batch counts. */
static void test_dead_letters(void) {
    CHECK(wst_init(NULL, 0, NULL) == 0);
    wst_record rs[] = {wst_rec("a", "x"), wst_rec("a", "fail"), wst_rec("a", "lost"), wst_rec("a", "y")};
    CHECK(wst_process(rs, 4) == 0);
    CHECK(wst_dead_letters() == 2);
    CHECK(wst_dead_letter_at(0)->record == 1 && wst_dead_letter_at(0)->code == WS_GUEST_RECORD);
    CHECK(strstr(wst_dead_letter_at(0)->reason, "value \"fail\" of key a") != NULL);
    CHECK(wst_dead_letter_at(1)->record == 2 && strstr(wst_dead_letter_at(1)->reason, "UNKNOWN_OUTPUT") != NULL);
    CHECK(wst_outputs() == 2 && wst_output_at(1)->record == 3 && bytes_are(wst_output_at(1)->value, "2"));
    int64_t count = 0;
    CHECK(wst_state_i64("a", "count", &count) == 1 && count == 2);
    ws_bytes seen;
    CHECK(wst_map_state("a", "seen", "fail", &seen) == 0);
}

/* Options: wired outputs and the emit and value limits of the pipeline file. */
static void test_options(void) {
    const char *outputs[] = {"other", NULL};
    CHECK(wst_init(NULL, 0, &(wst_options){.outputs = outputs}) == 0);
    wst_record r = wst_rec("a", "x");
    CHECK(wst_process(&r, 1) == 0);
    CHECK(wst_outputs() == 0 && wst_dead_letters() == 1 && strstr(wst_dead_letter_at(0)->reason, "UNKNOWN_OUTPUT"));
    CHECK(wst_init(NULL, 0, &(wst_options){.max_value_bytes = 4}) == 0);
    r = wst_rec("a", "12345");
    CHECK(wst_process(&r, 1) == 0);
    CHECK(wst_dead_letters() == 1 && strstr(wst_dead_letter_at(0)->reason, "TOO_LARGE"));
    CHECK(wst_state_len() == 0);
}

/* The config, a rejected config, and a host call the real host stops the guest for. */
static void test_init(void) {
    CHECK(wst_init("reject", 6, NULL) == WS_GUEST_CONFIG);
    CHECK(wst_logs() == 1 && strstr(wst_log_at(0)->msg, "config rejected") != NULL && wst_log_at(0)->record == -1);
    CHECK(wst_init("read-state", 10, NULL) == WST_ABORTED);
    CHECK(strstr(wst_abort_reason(), "state_get called outside a record") != NULL);
    /* State set beforehand is what a restored checkpoint holds. */
    CHECK(wst_init(NULL, 0, NULL) == 0);
    CHECK(wst_abort_reason()[0] == 0);
    uint8_t nine[8];
    ws_i64_encode(nine, 9);
    wst_set_state("a", "count", nine, 8);
    wst_record r = wst_rec("a", "x");
    CHECK(wst_process(&r, 1) == 0 && bytes_are(wst_output_at(0)->value, "10"));
}

/* Input headers and event time reach the operator as the host encodes them. */
static void test_headers(void) {
    CHECK(wst_init(NULL, 0, NULL) == 0);
    uint8_t hdr[64];
    const char *pairs[] = {"event-id", "e1"};
    size_t n = wst_headers(hdr, sizeof hdr, pairs, 1);
    CHECK(n == 4 + 8 + 4 + 2);
    wst_record r = wst_rec("a", "x");
    r.headers = hdr;
    r.headers_len = n;
    r.event_time_ns = 42;
    CHECK(wst_process(&r, 1) == 0 && wst_outputs() == 1);
}

int main(void) {
    test_counts();
    test_dead_letters();
    test_options();
    test_init();
    test_headers();
    if (failures > 0) {
        fprintf(stderr, "%d check(s) failed\n", failures);
        return 1;
    }
    printf("harness_test: all checks passed\n");
    return 0;
}
