import { bytesOf, stringOf } from "./utf8";

/**
 * A Codec turns state values of type T into bytes and back. The built-in
 * encodings are part of the checkpointed state and never change; they are
 * the same as the Go SDK's, so operators in different languages can read
 * each other's state.
 */
export abstract class Codec<T> {
  /**
   * Returns the bytes of value. The SDK only reads them, before the next
   * encode, so a codec may return the same buffer every time (the built-in
   * number and bool codecs do, to save an allocation per put).
   */
  abstract encode(value: T): Uint8Array;
  /**
   * Returns the value stored as bytes. Only called on bytes that check
   * accepted. It must not keep bytes: the SDK reuses them.
   */
  abstract decode(bytes: Uint8Array): T;
  /**
   * Returns null when bytes are a valid encoding, else the reason they are
   * not (most likely the state was written with another codec). The
   * default accepts everything.
   */
  check(bytes: Uint8Array): string | null {
    return null;
  }
}

/** Stores an i64 as 8 bytes, little-endian two's complement. */
export class Int64Codec extends Codec<i64> {
  private buf: Uint8Array = new Uint8Array(8);
  encode(value: i64): Uint8Array {
    store<i64>(this.buf.dataStart, value);
    return this.buf;
  }
  decode(bytes: Uint8Array): i64 {
    return load<i64>(bytes.dataStart);
  }
  check(bytes: Uint8Array): string | null {
    return bytes.byteLength == 8 ? null : "want exactly 8 bytes, got " + bytes.byteLength.toString();
  }
}

/** Stores a u64 as 8 bytes, little-endian. */
export class Uint64Codec extends Codec<u64> {
  private buf: Uint8Array = new Uint8Array(8);
  encode(value: u64): Uint8Array {
    store<u64>(this.buf.dataStart, value);
    return this.buf;
  }
  decode(bytes: Uint8Array): u64 {
    return load<u64>(bytes.dataStart);
  }
  check(bytes: Uint8Array): string | null {
    return bytes.byteLength == 8 ? null : "want exactly 8 bytes, got " + bytes.byteLength.toString();
  }
}

/** Stores an f64 as its IEEE 754 bits, 8 bytes, little-endian. */
export class Float64Codec extends Codec<f64> {
  private buf: Uint8Array = new Uint8Array(8);
  encode(value: f64): Uint8Array {
    store<f64>(this.buf.dataStart, value);
    return this.buf;
  }
  decode(bytes: Uint8Array): f64 {
    return load<f64>(bytes.dataStart);
  }
  check(bytes: Uint8Array): string | null {
    return bytes.byteLength == 8 ? null : "want exactly 8 bytes, got " + bytes.byteLength.toString();
  }
}

/** Stores a bool as one byte, 0 or 1. */
export class BoolCodec extends Codec<bool> {
  private buf: Uint8Array = new Uint8Array(1);
  encode(value: bool): Uint8Array {
    this.buf[0] = value ? 1 : 0;
    return this.buf;
  }
  decode(bytes: Uint8Array): bool {
    return bytes[0] == 1;
  }
  check(bytes: Uint8Array): string | null {
    return bytes.byteLength == 1 && bytes[0] <= 1 ? null : "want one byte, 0 or 1";
  }
}

/** Stores a string as UTF-8 (decoding replaces invalid bytes with U+FFFD). */
export class StringCodec extends Codec<string> {
  encode(value: string): Uint8Array {
    return bytesOf(value);
  }
  decode(bytes: Uint8Array): string {
    return stringOf(bytes);
  }
}

/** Stores bytes as they are; decode returns a copy. */
export class BytesCodec extends Codec<Uint8Array> {
  encode(value: Uint8Array): Uint8Array {
    return value;
  }
  decode(bytes: Uint8Array): Uint8Array {
    return bytes.slice();
  }
}

/**
 * Returns the built-in codec for T (i64, u64, f64, bool, string or
 * Uint8Array), or null for any other type, which needs a Codec of its own.
 */
export function defaultCodec<T>(): Codec<T> | null {
  if (isBoolean<T>()) return changetype<Codec<T>>(new BoolCodec());
  if (isInteger<T>() && sizeof<T>() == 8) {
    if (isSigned<T>()) return changetype<Codec<T>>(new Int64Codec());
    return changetype<Codec<T>>(new Uint64Codec());
  }
  if (isFloat<T>() && sizeof<T>() == 8) return changetype<Codec<T>>(new Float64Codec());
  if (isString<T>()) return changetype<Codec<T>>(new StringCodec());
  if (isReference<T>() && nameof<T>() == "Uint8Array") return changetype<Codec<T>>(new BytesCodec());
  return null;
}
