/*
 * wasmstream_json.c - flat JSON reader, output buffer and Go-compatible
 * JSON string writer; see wasmstream_json.h.
 */
#include "wasmstream_json.h"

#include <stdlib.h>
#include <string.h>

/* ---------------------------------------------------------------- UTF-8 */

/*
 * decode_rune decodes one UTF-8 sequence at s (n > 0 bytes) with the rules
 * of Go's utf8.DecodeRune: it returns the code point and its size, or -1
 * and size 1 for an invalid or incomplete sequence (overlong forms,
 * surrogates and values over U+10FFFF are invalid).
 */
static int32_t decode_rune(const uint8_t *s, size_t n, size_t *size) {
    uint8_t b0 = s[0];
    *size = 1;
    if (b0 < 0x80) return b0;
    size_t need;
    uint8_t lo = 0x80, hi = 0xBF;
    int32_t r;
    if (b0 >= 0xC2 && b0 <= 0xDF) {
        need = 2, r = b0 & 0x1F;
    } else if (b0 >= 0xE0 && b0 <= 0xEF) {
        need = 3, r = b0 & 0x0F;
        if (b0 == 0xE0) lo = 0xA0;
        if (b0 == 0xED) hi = 0x9F;
    } else if (b0 >= 0xF0 && b0 <= 0xF4) {
        need = 4, r = b0 & 0x07;
        if (b0 == 0xF0) lo = 0x90;
        if (b0 == 0xF4) hi = 0x8F;
    } else {
        return -1;
    }
    if (n < need || s[1] < lo || s[1] > hi) return -1;
    r = r << 6 | (s[1] & 0x3F);
    for (size_t i = 2; i < need; i++) {
        if (s[i] < 0x80 || s[i] > 0xBF) return -1;
        r = r << 6 | (s[i] & 0x3F);
    }
    *size = need;
    return r;
}

int ws_utf8_valid(const void *s, size_t n) {
    const uint8_t *p = s;
    size_t size;
    for (size_t i = 0; i < n; i += size)
        if (decode_rune(p + i, n - i, &size) < 0) return 0;
    return 1;
}

/* --------------------------------------------------------------- reader */

enum { ST_START, ST_FIRST, ST_NEXT, ST_DONE, ST_ERROR };

void ws_json_iter_init(ws_json_iter *it, const void *json, size_t len) {
    const uint8_t *p = json;
    *it = (ws_json_iter){p, p, p + len, ST_START, NULL, 0};
}

static int fail(ws_json_iter *it, const char *why) {
    it->state = ST_ERROR;
    it->why = why;
    it->offset = (size_t)(it->p - it->start);
    return WS_DECODE;
}

static void skip_ws(ws_json_iter *it) {
    while (it->p < it->end && (*it->p == ' ' || *it->p == '\t' || *it->p == '\n' || *it->p == '\r'))
        it->p++;
}

/* expect consumes byte c after optional whitespace. */
static int expect(ws_json_iter *it, uint8_t c) {
    skip_ws(it);
    if (it->p >= it->end || *it->p != c) return 0;
    it->p++;
    return 1;
}

/* scan_string reads a string without escapes; it->p is at the quote. */
static int scan_string(ws_json_iter *it, ws_bytes *out) {
    const uint8_t *s = ++it->p;
    while (it->p < it->end && *it->p != '"') {
        if (*it->p == '\\') return fail(it, "escapes in strings are not supported");
        if (*it->p < 0x20) return fail(it, "control character in a string");
        it->p++;
    }
    if (it->p >= it->end) return fail(it, "unterminated string");
    *out = (ws_bytes){s, (size_t)(it->p - s)};
    if (!ws_utf8_valid(s, out->len)) return fail(it, "string is not valid UTF-8");
    it->p++;
    return 0;
}

static int is_digit(const uint8_t *p, const uint8_t *end) { return p < end && *p >= '0' && *p <= '9'; }

/* scan_digits consumes one or more digits; 0 when there are none. */
static size_t scan_digits(ws_json_iter *it) {
    const uint8_t *s = it->p;
    while (is_digit(it->p, it->end)) it->p++;
    return (size_t)(it->p - s);
}

/* scan_number reads a JSON number; integers of up to 18 digits become WS_JSON_INT. */
static int scan_number(ws_json_iter *it, ws_json_member *m) {
    const uint8_t *s = it->p;
    int neg = *it->p == '-';
    if (neg) it->p++;
    const uint8_t *d = it->p;
    size_t digits = scan_digits(it);
    if (digits == 0) return fail(it, "bad number");
    if (digits > 1 && *d == '0') return fail(it, "number with a leading zero");
    int integer = 1;
    if (it->p < it->end && *it->p == '.') {
        it->p++;
        if (scan_digits(it) == 0) return fail(it, "bad number fraction");
        integer = 0;
    }
    if (it->p < it->end && (*it->p == 'e' || *it->p == 'E')) {
        it->p++;
        if (it->p < it->end && (*it->p == '+' || *it->p == '-')) it->p++;
        if (scan_digits(it) == 0) return fail(it, "bad number exponent");
        integer = 0;
    }
    m->text = (ws_bytes){s, (size_t)(it->p - s)};
    m->type = integer && digits <= 18 ? WS_JSON_INT : WS_JSON_NUMBER;
    m->num = 0;
    if (m->type == WS_JSON_INT) {
        for (size_t i = 0; i < digits; i++) m->num = m->num * 10 + (d[i] - '0');
        if (neg) m->num = -m->num;
    }
    return 0;
}

static int scan_literal(ws_json_iter *it, ws_json_member *m) {
    static const char *const lits[] = {"true", "false", "null"};
    for (int i = 0; i < 3; i++) {
        size_t n = strlen(lits[i]);
        if ((size_t)(it->end - it->p) >= n && memcmp(it->p, lits[i], n) == 0) {
            m->type = WS_JSON_LITERAL;
            m->text = (ws_bytes){it->p, n};
            it->p += n;
            return 0;
        }
    }
    return fail(it, "unexpected value");
}

static int scan_value(ws_json_iter *it, ws_json_member *m) {
    skip_ws(it);
    if (it->p >= it->end) return fail(it, "missing value");
    uint8_t c = *it->p;
    if (c == '"') {
        m->type = WS_JSON_STRING;
        m->num = 0;
        return scan_string(it, &m->text);
    }
    if (c == '-' || (c >= '0' && c <= '9')) return scan_number(it, m);
    if (c == '{' || c == '[') return fail(it, "nested objects and arrays are not supported");
    return scan_literal(it, m);
}

/* finish ends the object: only whitespace may follow the closing brace. */
static int finish(ws_json_iter *it) {
    skip_ws(it);
    if (it->p != it->end) return fail(it, "data after the object");
    it->state = ST_DONE;
    return 0;
}

int ws_json_next(ws_json_iter *it, ws_json_member *m) {
    if (it->state == ST_DONE) return 0;
    if (it->state == ST_ERROR) return WS_DECODE;
    if (it->state == ST_START) {
        if (!expect(it, '{')) return fail(it, "not a JSON object");
        it->state = ST_FIRST;
        if (expect(it, '}')) return finish(it);
    } else {
        if (expect(it, '}')) return finish(it);
        if (!expect(it, ',')) return fail(it, "expected ',' or '}'");
    }
    skip_ws(it);
    if (it->p >= it->end || *it->p != '"') return fail(it, "expected a member name");
    if (scan_string(it, &m->name) < 0) return WS_DECODE;
    if (!expect(it, ':')) return fail(it, "expected ':'");
    if (scan_value(it, m) < 0) return WS_DECODE;
    it->state = ST_NEXT;
    return 1;
}

static ws_json_field *find_field(ws_json_field *fields, size_t n, ws_bytes name) {
    for (size_t i = 0; i < n; i++)
        if (ws_bytes_eq_str(name, fields[i].name)) return &fields[i];
    return NULL;
}

static const char *type_name(ws_json_type t) {
    return t == WS_JSON_STRING ? "a string" : "an integer of at most 18 digits";
}

int ws_json_fields(const void *json, size_t len, ws_json_field *fields, size_t n, int flags) {
    for (size_t i = 0; i < n; i++) fields[i].found = 0;
    ws_json_iter it;
    ws_json_member m;
    int rc;
    ws_json_iter_init(&it, json, len);
    while ((rc = ws_json_next(&it, &m)) == 1) {
        ws_json_field *f = find_field(fields, n, m.name);
        if (f == NULL) {
            if (flags & WS_JSON_REJECT_UNKNOWN)
                return ws_set_error(WS_DECODE, "json: unknown field \"%.*s\"", WS_BYTES_ARG(m.name));
            continue;
        }
        if (m.type != f->type)
            return ws_set_error(WS_DECODE, "json: field \"%s\" is not %s", f->name, type_name(f->type));
        f->found = 1;
        f->str = m.type == WS_JSON_STRING ? m.text : (ws_bytes){NULL, 0};
        f->num = m.num;
    }
    if (rc < 0) return ws_set_error(WS_DECODE, "json: %s at byte %zu", it.why, it.offset);
    return 0;
}

int ws_parse_i64(const void *s, size_t len, int64_t *out) {
    const uint8_t *p = s, *end = p + len;
    int neg = p < end && *p == '-';
    p += neg;
    size_t digits = (size_t)(end - p);
    int ok = digits >= 1 && digits <= 18 && !(digits > 1 && *p == '0');
    int64_t v = 0;
    for (; ok && p < end; p++) {
        ok = *p >= '0' && *p <= '9';
        v = v * 10 + (*p - '0');
    }
    if (!ok)
        return ws_set_error(WS_DECODE, "\"%.*s\" is not a decimal integer of 1 to 18 digits",
                            (int)(len > 64 ? 64 : len), (const char *)s);
    *out = neg ? -v : v;
    return 0;
}

/* --------------------------------------------------------------- ws_buf */

#define BUF_KEEP (64 * 1024)

void ws_buf_reset(ws_buf *b) {
    if (b->cap > BUF_KEEP) {
        free(b->ptr);
        b->ptr = NULL;
        b->cap = 0;
    }
    b->len = 0;
    b->failed = 0;
}

/* reserve makes room for n more bytes; 0 when memory is exhausted. */
static int reserve(ws_buf *b, size_t n) {
    if (b->failed) return 0;
    if (n <= b->cap - b->len) return 1;
    size_t want = b->cap * 2 > 64 ? b->cap * 2 : 64;
    if (want - b->len < n) want = b->len + n;
    uint8_t *p = realloc(b->ptr, want);
    if (p == NULL) {
        b->failed = 1;
        return 0;
    }
    b->ptr = p;
    b->cap = want;
    return 1;
}

void ws_buf_append(ws_buf *b, const void *p, size_t n) {
    if (n == 0 || !reserve(b, n)) return;
    memcpy(b->ptr + b->len, p, n);
    b->len += n;
}

void ws_buf_append_str(ws_buf *b, const char *s) { ws_buf_append(b, s, strlen(s)); }

void ws_buf_append_i64(ws_buf *b, int64_t v) {
    char tmp[20];
    size_t i = sizeof tmp;
    uint64_t u = v < 0 ? 0 - (uint64_t)v : (uint64_t)v; /* INT64_MIN too */
    do {
        tmp[--i] = (char)('0' + u % 10);
        u /= 10;
    } while (u > 0);
    if (v < 0) tmp[--i] = '-';
    ws_buf_append(b, tmp + i, sizeof tmp - i);
}

static const char hex[] = "0123456789abcdef";

/* escape_ascii returns the escape of an ASCII byte, or NULL when it is safe. */
static const char *escape_ascii(uint8_t c, char u[7]) {
    switch (c) {
    case '"': return "\\\"";
    case '\\': return "\\\\";
    case '\b': return "\\b";
    case '\f': return "\\f";
    case '\n': return "\\n";
    case '\r': return "\\r";
    case '\t': return "\\t";
    }
    if (c >= 0x20 && c != '<' && c != '>' && c != '&') return NULL;
    memcpy(u, "\\u00", 4);
    u[4] = hex[c >> 4];
    u[5] = hex[c & 0xF];
    u[6] = 0;
    return u;
}

void ws_buf_append_json_string(ws_buf *b, const void *s, size_t n) {
    const uint8_t *p = s;
    size_t start = 0, size;
    char u[7];
    ws_buf_append(b, "\"", 1);
    for (size_t i = 0; i < n; i += size) {
        const char *esc = NULL;
        if (p[i] < 0x80) {
            size = 1;
            esc = escape_ascii(p[i], u);
        } else {
            int32_t r = decode_rune(p + i, n - i, &size);
            if (r < 0) esc = "\\ufffd";
            if (r == 0x2028) esc = "\\u2028";
            if (r == 0x2029) esc = "\\u2029";
        }
        if (esc == NULL) continue;
        ws_buf_append(b, p + start, i - start);
        ws_buf_append_str(b, esc);
        start = i + size;
    }
    ws_buf_append(b, p + start, n - start);
    ws_buf_append(b, "\"", 1);
}
