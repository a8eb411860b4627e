// UTF-8 conversions between AssemblyScript strings (UTF-16) and the bytes
// that cross the ABI. Decoding follows Go's rules (each byte of an invalid
// sequence becomes U+FFFD), so that an AssemblyScript operator sees the same
// text a Go operator would; encoding replaces lone surrogates with U+FFFD,
// so that the bytes are always valid UTF-8.

/** Returns the UTF-8 encoding of s in a new Uint8Array. */
export function bytesOf(s: string): Uint8Array {
  const n = utf8Length(s);
  const out = new Uint8Array(<i32>n);
  writeUtf8(s, out.dataStart);
  return out;
}

/** Returns b decoded as UTF-8; invalid bytes become U+FFFD. */
export function stringOf(b: Uint8Array): string {
  return decodeUtf8(b.dataStart, <usize>b.byteLength);
}

/** Reports whether a and b hold the same bytes. */
export function equalBytes(a: Uint8Array, b: Uint8Array): bool {
  const n = a.byteLength;
  return n == b.byteLength && memory.compare(a.dataStart, b.dataStart, <usize>n) == 0;
}

/** Returns the number of bytes writeUtf8 writes for s. */
export function utf8Length(s: string): usize {
  return <usize>String.UTF8.byteLength(s);
}

/** Writes s as UTF-8 at ptr (utf8Length(s) bytes) and returns the byte count. */
export function writeUtf8(s: string, ptr: usize): usize {
  return String.UTF8.encodeUnsafe(changetype<usize>(s), s.length, ptr, false, String.UTF8.ErrorMode.REPLACE);
}

/** Decodes len bytes at ptr as UTF-8, replacing each invalid byte with U+FFFD as Go does. */
export function decodeUtf8(ptr: usize, len: usize): string {
  if (len == 0) return "";
  // A UTF-8 byte yields at most one UTF-16 unit, so len units always suffice.
  // The string is held as a string, not as an address, so that the
  // collector sees it as live.
  const str = changetype<string>(__new(len << 1, idof<String>()));
  const start = changetype<usize>(str);
  let out = start;
  const end = ptr + len;
  while (ptr < end) {
    const b0 = <u32>load<u8>(ptr);
    if (b0 < 0x80) {
      store<u16>(out, <u16>b0);
      out += 2;
      ptr++;
      continue;
    }
    const size = runeSize(ptr, end);
    if (size == 0) {
      store<u16>(out, 0xFFFD);
      out += 2;
      ptr++;
      continue;
    }
    out = storeRune(out, runeAt(ptr, size));
    ptr += size;
  }
  return changetype<string>(__renew(start, out - start));
}

/** runeSize returns the length of the valid multi-byte sequence at ptr, or 0 (Go's utf8.DecodeRune table). */
function runeSize(ptr: usize, end: usize): usize {
  const b0 = <u32>load<u8>(ptr);
  let size: usize = 0;
  let lo: u32 = 0x80, hi: u32 = 0xBF;
  if (b0 >= 0xC2 && b0 <= 0xDF) size = 2;
  else if (b0 >= 0xE0 && b0 <= 0xEF) {
    size = 3;
    if (b0 == 0xE0) lo = 0xA0;
    else if (b0 == 0xED) hi = 0x9F; // no UTF-16 surrogates
  } else if (b0 >= 0xF0 && b0 <= 0xF4) {
    size = 4;
    if (b0 == 0xF0) lo = 0x90;
    else if (b0 == 0xF4) hi = 0x8F; // nothing above U+10FFFF
  } else return 0;
  if (ptr + size > end) return 0;
  const b1 = <u32>load<u8>(ptr, 1);
  if (b1 < lo || b1 > hi) return 0;
  for (let i: usize = 2; i < size; i++) {
    const b = <u32>load<u8>(ptr + i);
    if (b < 0x80 || b > 0xBF) return 0;
  }
  return size;
}

/** runeAt decodes a sequence runeSize accepted. */
function runeAt(ptr: usize, size: usize): u32 {
  const b0 = <u32>load<u8>(ptr);
  const b1 = <u32>load<u8>(ptr, 1) & 0x3F;
  if (size == 2) return (b0 & 0x1F) << 6 | b1;
  const b2 = <u32>load<u8>(ptr, 2) & 0x3F;
  if (size == 3) return (b0 & 0x0F) << 12 | b1 << 6 | b2;
  return (b0 & 0x07) << 18 | b1 << 12 | b2 << 6 | (<u32>load<u8>(ptr, 3) & 0x3F);
}

/** storeRune writes r as one or two UTF-16 units at out and returns the new end. */
function storeRune(out: usize, r: u32): usize {
  if (r < 0x10000) {
    store<u16>(out, <u16>r);
    return out + 2;
  }
  r -= 0x10000;
  store<u16>(out, <u16>(0xD800 | (r >> 10)));
  store<u16>(out, <u16>(0xDC00 | (r & 0x3FF)), 2);
  return out + 4;
}
