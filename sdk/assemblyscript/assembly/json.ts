import { Scratch } from "./scratch";
import { decodeUtf8 } from "./utf8";

// A small JSON reader and writer for the common shape of stream records: a
// flat object whose values are strings, numbers, booleans or null. It
// exists because AssemblyScript has no JSON in its standard library, and it
// follows Go's encoding/json where the two could differ, so an
// AssemblyScript operator gives the same bytes as a Go one:
// - strings are unescaped as Go does (a lone \uD800 becomes U+FFFD, each
//   byte of invalid UTF-8 becomes U+FFFD);
// - the writer escapes like json.Marshal: \" \\ \b \f \n \r \t, other
//   control characters and < > & as \u00XX, U+2028 and U+2029 as \u2028
//   and \u2029.
// Nested objects and arrays are refused; keys match exactly (Go's
// decoder also accepts keys that differ only in case).

/** The type of a field's value. */
export enum JsonKind {
  /** The object has no such field. */
  Missing,
  String,
  /** A number without fraction or exponent that fits an i64. */
  Integer,
  /** Any other number (fraction, exponent, or out of the i64 range). */
  Number,
  Bool,
  Null,
}

/** unescaped collects a string's UTF-8 while it is unescaped. */
const unescaped = new Scratch(64);

/** A parsed flat JSON object. Check error before using the fields. */
export class FlatObject {
  /** Why the bytes are not a flat JSON object, or null. */
  error: string | null = null;
  private names: string[] = [];
  private kinds: JsonKind[] = [];
  private strings: string[] = [];
  private ints: i64[] = [];

  /** Parses bytes as one flat JSON object, with optional whitespace around it. */
  static parse(bytes: Uint8Array): FlatObject {
    const obj = new FlatObject();
    const p = new Parser(bytes.dataStart, bytes.dataStart + <usize>bytes.byteLength, obj);
    p.object();
    unescaped.trim();
    return obj;
  }

  /** Returns the number of fields, repeated names included. */
  get length(): i32 {
    return this.names.length;
  }

  /** Returns the name of field i, in the order of the input. */
  nameAt(i: i32): string {
    return this.names[i];
  }

  /** Returns the kind of field i. */
  kindAt(i: i32): JsonKind {
    return this.kinds[i];
  }

  /** Returns the string value of field i, or "" when it is not a string. */
  stringAt(i: i32): string {
    return this.kinds[i] == JsonKind.String ? this.strings[i] : "";
  }

  /** Returns the integer value of field i, or 0 when it is not an Integer. */
  integerAt(i: i32): i64 {
    return this.kinds[i] == JsonKind.Integer ? this.ints[i] : 0;
  }

  /** Returns the boolean value of field i, or false when it is not a Bool. */
  boolAt(i: i32): bool {
    return this.kinds[i] == JsonKind.Bool && this.ints[i] != 0;
  }

  /** Returns the kind of the field called name; the last one wins when a name repeats. */
  kind(name: string): JsonKind {
    const i = this.find(name);
    return i < 0 ? JsonKind.Missing : this.kinds[i];
  }

  /** Returns the string value of name, or "" when it is not a string. */
  getString(name: string): string {
    const i = this.find(name);
    return i < 0 ? "" : this.stringAt(i);
  }

  /** Returns the integer value of name, or 0 when it is not an Integer. */
  getInteger(name: string): i64 {
    const i = this.find(name);
    return i < 0 ? 0 : this.integerAt(i);
  }

  /** Returns the boolean value of name, or false when it is not a Bool. */
  getBool(name: string): bool {
    const i = this.find(name);
    return i >= 0 && this.boolAt(i);
  }

  /** add records one field; used by the parser. */
  add(name: string, kind: JsonKind, str: string, int: i64): void {
    this.names.push(name);
    this.kinds.push(kind);
    this.strings.push(str);
    this.ints.push(int);
  }

  private find(name: string): i32 {
    for (let i = this.names.length - 1; i >= 0; i--) {
      if (this.names[i] == name) return i;
    }
    return -1;
  }
}

/** Parser is a recursive-descent parser over [pos, end) that fills obj. */
class Parser {
  private base: usize;

  constructor(private pos: usize, private end: usize, private obj: FlatObject) {
    this.base = pos;
  }

  object(): void {
    this.ws();
    if (!this.eat(0x7B)) return this.fail("want a JSON object starting with {");
    this.ws();
    if (!this.eat(0x7D)) {
      do {
        this.ws();
        if (!this.member()) return;
        this.ws();
      } while (this.eat(0x2C));
      if (!this.eat(0x7D)) return this.fail("want , or } after a field");
    }
    this.ws();
    if (this.pos != this.end) this.fail("trailing data after the object");
  }

  private member(): bool {
    if (this.peek() != 0x22) return this.failed("want a field name in double quotes");
    const name = this.string();
    if (name == null) return false;
    this.ws();
    if (!this.eat(0x3A)) return this.failed("want : after field name \"" + name + "\"");
    this.ws();
    const c = this.peek();
    if (c == 0x22) {
      const s = this.string();
      if (s == null) return false;
      this.obj.add(name, JsonKind.String, s, 0);
    } else if (c == 0x2D || (c >= 0x30 && c <= 0x39)) {
      return this.number(name);
    } else if (this.word("true")) {
      this.obj.add(name, JsonKind.Bool, "", 1);
    } else if (this.word("false")) {
      this.obj.add(name, JsonKind.Bool, "", 0);
    } else if (this.word("null")) {
      this.obj.add(name, JsonKind.Null, "", 0);
    } else if (c == 0x7B || c == 0x5B) {
      return this.failed("field \"" + name + "\": nested objects and arrays are not supported");
    } else {
      return this.failed("field \"" + name + "\": want a string, number, true, false or null");
    }
    return true;
  }

  /** string reads a quoted string at pos and returns it unescaped, or null after fail. */
  private string(): string | null {
    this.pos++; // opening quote
    unescaped.reset();
    while (this.pos < this.end) {
      const c = <u32>load<u8>(this.pos);
      if (c == 0x22) {
        this.pos++;
        return decodeUtf8(unescaped.ptr, unescaped.len);
      }
      if (c < 0x20) return this.failedString("control character in a string");
      if (c != 0x5C) {
        unescaped.putByte(<u8>c);
        this.pos++;
        continue;
      }
      if (!this.escape()) return null;
    }
    return this.failedString("unterminated string");
  }

  /** escape reads one escape sequence at pos (the backslash) into unescaped. */
  private escape(): bool {
    if (this.end - this.pos < 2) return this.failed("unterminated escape");
    const e = <u32>load<u8>(this.pos, 1);
    this.pos += 2;
    let out: i32 = -1;
    switch (e) {
      case 0x22: out = 0x22; break;
      case 0x5C: out = 0x5C; break;
      case 0x2F: out = 0x2F; break;
      case 0x62: out = 0x08; break;
      case 0x66: out = 0x0C; break;
      case 0x6E: out = 0x0A; break;
      case 0x72: out = 0x0D; break;
      case 0x74: out = 0x09; break;
      case 0x75: return this.unicodeEscape();
    }
    if (out < 0) return this.failed("invalid escape in a string");
    unescaped.putByte(<u8>out);
    return true;
  }

  /** unicodeEscape reads the XXXX of \uXXXX (and a low surrogate's \uXXXX after a high one). */
  private unicodeEscape(): bool {
    const u = this.hex4(this.pos);
    if (u < 0) return this.failed("invalid \\u escape in a string");
    this.pos += 4;
    let r = <u32>u;
    if (r >= 0xD800 && r < 0xE000) {
      r = 0xFFFD; // a lone surrogate, unless a low one follows
      if (u < 0xDC00 && this.end - this.pos >= 6 && load<u8>(this.pos) == 0x5C && load<u8>(this.pos, 1) == 0x75) {
        const lo = this.hex4(this.pos + 2);
        if (lo >= 0xDC00 && lo < 0xE000) {
          r = 0x10000 + ((<u32>u - 0xD800) << 10) + (<u32>lo - 0xDC00);
          this.pos += 6;
        }
      }
    }
    putRune(unescaped, r);
    return true;
  }

  private hex4(at: usize): i32 {
    if (this.end < at + 4) return -1;
    let v = 0;
    for (let i: usize = 0; i < 4; i++) {
      const c = <i32>load<u8>(at + i);
      let d: i32;
      if (c >= 0x30 && c <= 0x39) d = c - 0x30;
      else if (c >= 0x61 && c <= 0x66) d = c - 0x61 + 10;
      else if (c >= 0x41 && c <= 0x46) d = c - 0x41 + 10;
      else return -1;
      v = (v << 4) | d;
    }
    return v;
  }

  /** number reads a JSON number and records it as Integer or Number. */
  private number(name: string): bool {
    const start = this.pos;
    const neg = this.eat(0x2D);
    let acc: u64 = 0;
    let overflow = false;
    const intStart = this.pos;
    while (this.pos < this.end && isDigit(load<u8>(this.pos))) {
      const d = <u64>(load<u8>(this.pos) - 0x30);
      if (acc > (u64.MAX_VALUE - d) / 10) overflow = true;
      else acc = acc * 10 + d;
      this.pos++;
    }
    const digits = this.pos - intStart;
    if (digits == 0) return this.failed("field \"" + name + "\": invalid number");
    if (digits > 1 && load<u8>(intStart) == 0x30) return this.failed("field \"" + name + "\": number with a leading zero");
    let integer = true;
    if (this.eat(0x2E)) {
      integer = false;
      if (!this.digits()) return this.failed("field \"" + name + "\": invalid number");
    }
    if (this.peek() == 0x65 || this.peek() == 0x45) {
      integer = false;
      this.pos++;
      if (this.peek() == 0x2B || this.peek() == 0x2D) this.pos++;
      if (!this.digits()) return this.failed("field \"" + name + "\": invalid number");
    }
    const limit: u64 = neg ? <u64>1 << 63 : <u64>i64.MAX_VALUE;
    if (integer && !overflow && acc <= limit) {
      this.obj.add(name, JsonKind.Integer, "", neg ? <i64>(0 - acc) : <i64>acc);
    } else {
      this.obj.add(name, JsonKind.Number, decodeUtf8(start, this.pos - start), 0);
    }
    return true;
  }

  private digits(): bool {
    const from = this.pos;
    while (this.pos < this.end && isDigit(load<u8>(this.pos))) this.pos++;
    return this.pos > from;
  }

  private word(w: string): bool {
    const n = <usize>w.length;
    if (this.end - this.pos < n) return false;
    for (let i: usize = 0; i < n; i++) {
      if (<u32>load<u8>(this.pos + i) != <u32>w.charCodeAt(<i32>i)) return false;
    }
    this.pos += n;
    return true;
  }

  private ws(): void {
    while (this.pos < this.end) {
      const c = load<u8>(this.pos);
      if (c != 0x20 && c != 0x09 && c != 0x0A && c != 0x0D) return;
      this.pos++;
    }
  }

  private peek(): u32 {
    return this.pos < this.end ? <u32>load<u8>(this.pos) : 0xFFFFFFFF;
  }

  private eat(c: u32): bool {
    if (this.peek() != c) return false;
    this.pos++;
    return true;
  }

  private fail(why: string): void {
    if (this.obj.error == null) this.obj.error = why + " at byte " + (this.pos - this.base).toString();
  }

  private failed(why: string): bool {
    this.fail(why);
    return false;
  }

  private failedString(why: string): string | null {
    this.fail(why);
    return null;
  }
}

function isDigit(c: u8): bool {
  return c >= 0x30 && c <= 0x39;
}

/** putRune appends r to s as UTF-8. */
function putRune(s: Scratch, r: u32): void {
  if (r < 0x80) {
    s.putByte(<u8>r);
  } else if (r < 0x800) {
    s.putByte(<u8>(0xC0 | (r >> 6)));
    s.putByte(<u8>(0x80 | (r & 0x3F)));
  } else if (r < 0x10000) {
    s.putByte(<u8>(0xE0 | (r >> 12)));
    s.putByte(<u8>(0x80 | ((r >> 6) & 0x3F)));
    s.putByte(<u8>(0x80 | (r & 0x3F)));
  } else {
    s.putByte(<u8>(0xF0 | (r >> 18)));
    s.putByte(<u8>(0x80 | ((r >> 12) & 0x3F)));
    s.putByte(<u8>(0x80 | ((r >> 6) & 0x3F)));
    s.putByte(<u8>(0x80 | (r & 0x3F)));
  }
}
