import { Record } from "./record";

// Decoding of the batch the host hands to ws_process (abi/ABI.md section
// 5.1). The bytes come from the host, but the SDK still checks every length
// against the end of the batch: a wrong length would otherwise make it read
// past the buffer and hand an operator garbage.

/** Fixed bytes of a record around its key, value and headers. */
const recordFixed: usize = 24;

/** BatchReader walks the records of one batch, copying each into a Record. */
export class BatchReader {
  /** Records not yet read. */
  remaining: u32 = 0;
  /** Why the batch is malformed, once next() has returned null before the end. */
  error: string | null = null;
  private pos: usize;
  private end: usize;

  constructor(ptr: usize, len: usize) {
    this.pos = ptr;
    this.end = ptr + len;
    if (len < 4) {
      this.error = "batch of " + len.toString() + " bytes has no record count";
    } else {
      this.remaining = load<u32>(ptr);
      this.pos = ptr + 4;
    }
  }

  /** Returns the next record, or null at the end or on malformed bytes (see error). */
  next(): Record | null {
    if (this.error != null) return null;
    if (this.remaining == 0) {
      if (this.pos != this.end) this.error = "trailing bytes after the last record";
      return null;
    }
    const p = this.pos;
    if (this.end - p < recordFixed) return this.malformed("record header is cut off");
    // avail is what the batch has left for key, value and headers; comparing
    // each length with it (instead of adding lengths) cannot overflow.
    let avail = this.end - p - recordFixed;
    const eventTime = load<i64>(p);
    const input = load<u32>(p, 8);
    const keyLen = <usize>load<u32>(p, 12);
    if (keyLen > avail) return this.malformed("key length runs past the batch");
    avail -= keyLen;
    const valLen = <usize>load<u32>(p + 16 + keyLen);
    if (valLen > avail) return this.malformed("value length runs past the batch");
    avail -= valLen;
    const hdrLen = <usize>load<u32>(p + 20 + keyLen + valLen);
    if (hdrLen > avail) return this.malformed("header length runs past the batch");
    const hdrPtr = p + recordFixed + keyLen + valLen;
    if (!validHeaders(hdrPtr, hdrLen)) return this.malformed("header list is malformed");
    this.pos = hdrPtr + hdrLen;
    this.remaining--;
    return new Record(copyOf(p + 16, keyLen), copyOf(p + 20 + keyLen, valLen), eventTime, <i32>input, copyOf(hdrPtr, hdrLen));
  }

  private malformed(why: string): Record | null {
    this.error = why;
    return null;
  }
}

/** emptyBytes is shared by every record without headers (or key, or value). */
const emptyBytes = new Uint8Array(0);

/** copyOf copies n bytes at ptr into a new array, so the record outlives the batch buffer. */
function copyOf(ptr: usize, n: usize): Uint8Array {
  if (n == 0) return emptyBytes;
  const out = new Uint8Array(<i32>n);
  memory.copy(out.dataStart, ptr, n);
  return out;
}

/** validHeaders reports whether [ptr, ptr+len) is a sequence of complete name/value pairs. */
export function validHeaders(ptr: usize, len: usize): bool {
  let rest = len;
  while (rest > 0) {
    for (let part = 0; part < 2; part++) {
      if (rest < 4) return false;
      const n = <usize>load<u32>(ptr);
      if (rest - 4 < n) return false;
      ptr += 4 + n;
      rest -= 4 + n;
    }
  }
  return true;
}
