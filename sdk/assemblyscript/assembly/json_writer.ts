// JsonWriter builds one flat JSON object with the bytes Go's json.Marshal
// would produce for a struct with the same fields in the same order: no
// spaces, and strings escaped as Go escapes them (see json.ts).

const hexDigits = "0123456789abcdef";

/**
 * Builds a flat JSON object field by field:
 *
 *     const out = new JsonWriter().string("account", a).integer("total", t).finish();
 */
export class JsonWriter {
  private buf: Uint8Array = new Uint8Array(64);
  private len: i32 = 0;
  private fields: i32 = 0;

  constructor() {
    this.byte(0x7B);
  }

  /** Adds a string field. */
  string(name: string, value: string): JsonWriter {
    this.key(name);
    this.quoted(value);
    return this;
  }

  /** Adds an integer field. */
  integer(name: string, value: i64): JsonWriter {
    this.key(name);
    this.decimal(value);
    return this;
  }

  /** Adds a boolean field. */
  bool(name: string, value: bool): JsonWriter {
    this.key(name);
    this.ascii(value ? "true" : "false");
    return this;
  }

  /** Adds a null field. */
  null(name: string): JsonWriter {
    this.key(name);
    this.ascii("null");
    return this;
  }

  /** Closes the object and returns its bytes. The writer must not be used afterwards. */
  finish(): Uint8Array {
    this.byte(0x7D);
    return this.buf.slice(0, this.len);
  }

  private key(name: string): void {
    if (this.fields++ > 0) this.byte(0x2C);
    this.quoted(name);
    this.byte(0x3A);
  }

  /** quoted writes s as a JSON string, escaped as Go's encoding/json does (HTML-safe). */
  private quoted(s: string): void {
    this.byte(0x22);
    const n = s.length;
    for (let i = 0; i < n; i++) {
      const c = <u32>s.charCodeAt(i);
      if (c < 0x80) {
        this.asciiChar(c);
      } else if (c >= 0xD800 && c < 0xDC00 && i + 1 < n && (<u32>s.charCodeAt(i + 1) & 0xFC00) == 0xDC00) {
        const lo = <u32>s.charCodeAt(++i);
        this.rune(0x10000 + ((c - 0xD800) << 10) + (lo - 0xDC00));
      } else if (c >= 0xD800 && c < 0xE000) {
        this.ascii("\\ufffd"); // a lone surrogate: Go sees invalid UTF-8 there
      } else if (c == 0x2028 || c == 0x2029) {
        this.ascii(c == 0x2028 ? "\\u2028" : "\\u2029");
      } else {
        this.rune(c);
      }
    }
    this.byte(0x22);
  }

  private asciiChar(c: u32): void {
    switch (c) {
      case 0x22: this.ascii("\\\""); return;
      case 0x5C: this.ascii("\\\\"); return;
      case 0x08: this.ascii("\\b"); return;
      case 0x0C: this.ascii("\\f"); return;
      case 0x0A: this.ascii("\\n"); return;
      case 0x0D: this.ascii("\\r"); return;
      case 0x09: this.ascii("\\t"); return;
    }
    if (c < 0x20 || c == 0x3C || c == 0x3E || c == 0x26) {
      this.ascii("\\u00");
      this.byte(<u8>hexDigits.charCodeAt(<i32>(c >> 4)));
      this.byte(<u8>hexDigits.charCodeAt(<i32>(c & 0xF)));
      return;
    }
    this.byte(<u8>c);
  }

  private rune(r: u32): void {
    if (r < 0x800) {
      this.byte(<u8>(0xC0 | (r >> 6)));
    } else if (r < 0x10000) {
      this.byte(<u8>(0xE0 | (r >> 12)));
      this.byte(<u8>(0x80 | ((r >> 6) & 0x3F)));
    } else {
      this.byte(<u8>(0xF0 | (r >> 18)));
      this.byte(<u8>(0x80 | ((r >> 12) & 0x3F)));
      this.byte(<u8>(0x80 | ((r >> 6) & 0x3F)));
    }
    this.byte(<u8>(0x80 | (r & 0x3F)));
  }

  private decimal(v: i64): void {
    this.ascii(v.toString());
  }

  private ascii(s: string): void {
    for (let i = 0, n = s.length; i < n; i++) this.byte(<u8>s.charCodeAt(i));
  }

  private byte(b: u8): void {
    if (this.len == this.buf.byteLength) {
      const bigger = new Uint8Array(this.len * 2);
      bigger.set(this.buf);
      this.buf = bigger;
    }
    this.buf[this.len++] = b;
  }
}
