/*
 * wasmstream_json.h - optional helpers for operators that read and write
 * JSON: a reader for flat JSON objects, a growable output buffer and a JSON
 * string writer that escapes exactly like Go's encoding/json, so that C
 * operators can produce byte-identical output to Go ones. Compile
 * wasmstream_json.c next to wasmstream.c to use them.
 *
 * The reader accepts flat objects only: {"name":value,...} where a value is
 * a string, a number or true/false/null. Strings may not contain escapes
 * (a backslash) or control characters and must be valid UTF-8; nested
 * objects and arrays are refused. Whitespace between tokens is free. This
 * is the JSON subset of conformance/OPERATORS.md, with numbers and literals
 * accepted for fields an operator ignores.
 */
#ifndef WASMSTREAM_JSON_H
#define WASMSTREAM_JSON_H

#include "wasmstream.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The type of a member's value. */
typedef enum ws_json_type {
    WS_JSON_STRING = 1,  /* text: the bytes between the quotes */
    WS_JSON_INT = 2,     /* an integer of at most 18 digits, in num */
    WS_JSON_NUMBER = 3,  /* any other number (fraction, exponent, more digits) */
    WS_JSON_LITERAL = 4  /* true, false or null */
} ws_json_type;

/* One "name":value member of an object. Slices point into the input. */
typedef struct ws_json_member {
    ws_bytes name;      /* the bytes between the quotes */
    ws_json_type type;
    ws_bytes text;      /* a string's bytes, or the token of other values */
    int64_t num;        /* WS_JSON_INT only */
} ws_json_member;

/* ws_json_iter walks the members of one flat object. */
typedef struct ws_json_iter {
    const uint8_t *start;
    const uint8_t *p;
    const uint8_t *end;
    int state;
    const char *why;    /* after WS_DECODE: what is wrong */
    size_t offset;      /* after WS_DECODE: where, in bytes from the start */
} ws_json_iter;

void ws_json_iter_init(ws_json_iter *it, const void *json, size_t len);

/*
 * ws_json_next stores the next member and returns 1; returns 0 after the
 * closing brace when nothing but whitespace follows it; returns WS_DECODE
 * (it->why, it->offset) for anything else, and again on later calls.
 */
int ws_json_next(ws_json_iter *it, ws_json_member *m);

/* A field ws_json_fields looks for. Set name and type; it sets the rest. */
typedef struct ws_json_field {
    const char *name;
    ws_json_type type;  /* WS_JSON_STRING or WS_JSON_INT */
    int found;
    ws_bytes str;       /* WS_JSON_STRING */
    int64_t num;        /* WS_JSON_INT */
} ws_json_field;

/* Flags of ws_json_fields. */
#define WS_JSON_REJECT_UNKNOWN 1 /* a member whose name is not listed is an error */

/*
 * ws_json_fields parses a whole flat object and fills the fields listed:
 * found is 1 for the ones present (the last occurrence wins, as in Go).
 * Returns 0, or WS_DECODE with a message recorded (ws_last_error) when the
 * object is malformed, a listed field has another type, or (with
 * WS_JSON_REJECT_UNKNOWN) a member is not listed.
 */
int ws_json_fields(const void *json, size_t len, ws_json_field *fields, size_t n, int flags);

/*
 * ws_parse_i64 parses a decimal integer as OPERATORS.md defines it: an
 * optional '-', no '+', no leading zeros except "0" itself, 1 to 18
 * digits, nothing else. Returns 0, or WS_DECODE with a message recorded.
 */
int ws_parse_i64(const void *s, size_t len, int64_t *out);

/*
 * ws_buf is a growable byte buffer for building output. Zero-initialise it
 * (static ws_buf out;) and ws_buf_reset it before each use: reset keeps
 * the storage for reuse unless it grew over 64 KiB, so memory stays
 * bounded. When malloc fails, failed is set and later appends do nothing.
 */
typedef struct ws_buf {
    uint8_t *ptr;
    size_t len;
    size_t cap;
    int failed;
} ws_buf;

void ws_buf_reset(ws_buf *b);
void ws_buf_append(ws_buf *b, const void *p, size_t n);
void ws_buf_append_str(ws_buf *b, const char *s);
/* ws_buf_append_i64 appends v in decimal. */
void ws_buf_append_i64(ws_buf *b, int64_t v);
/*
 * ws_buf_append_json_string appends s as a quoted JSON string escaped like
 * Go's json.Marshal: \" \\ \b \f \n \r \t, other control bytes and < > &
 * as \u00XX, U+2028 and U+2029 as \u2028 \u2029, and each byte of invalid
 * UTF-8 as \ufffd.
 */
void ws_buf_append_json_string(ws_buf *b, const void *s, size_t n);

/* ws_utf8_valid reports whether s is valid UTF-8 (as Go's utf8.Valid). */
int ws_utf8_valid(const void *s, size_t n);

#ifdef __cplusplus
}
#endif

#endif /* WASMSTREAM_JSON_H */
