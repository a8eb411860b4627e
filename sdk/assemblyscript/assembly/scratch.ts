// Scratch is a growable buffer in unmanaged memory (heap.alloc), for the
// bytes the SDK hands to the host: state names, output names, header lists,
// log lines, values read back from state_get. The garbage collector neither
// moves nor frees it, and reusing it keeps the hot path free of allocation.

/** maxRetained is the largest capacity a Scratch keeps after use (see trim). */
const maxRetained: usize = 64 << 10;

/** A growable unmanaged byte buffer. Offsets stay valid across growth; pointers do not. */
export class Scratch {
  /** Start of the buffer; changes when the buffer grows. */
  ptr: usize = 0;
  /** Bytes allocated at ptr. */
  cap: usize = 0;
  /** Bytes in use. */
  len: usize = 0;

  constructor(private initial: usize) {}

  /** Empties the buffer, keeping its memory. */
  reset(): void {
    this.len = 0;
  }

  /** Makes room for n more bytes and returns the offset where they go. */
  reserve(n: usize): usize {
    const need = this.len + n;
    if (need > this.cap) this.grow(need);
    const off = this.len;
    this.len = need;
    return off;
  }

  /** Ensures a capacity of at least n bytes without changing len. */
  ensure(n: usize): void {
    if (n > this.cap) this.grow(n);
  }

  /** Appends s as UTF-8 and returns its offset. */
  putUtf8(s: string): usize {
    const n = <usize>String.UTF8.byteLength(s);
    const off = this.reserve(n);
    String.UTF8.encodeUnsafe(changetype<usize>(s), s.length, this.ptr + off, false, String.UTF8.ErrorMode.REPLACE);
    return off;
  }

  /** Appends n bytes from src and returns their offset. */
  putBytes(src: usize, n: usize): usize {
    const off = this.reserve(n);
    memory.copy(this.ptr + off, src, n);
    return off;
  }

  /** Appends one byte. */
  putByte(b: u8): void {
    const off = this.reserve(1);
    store<u8>(this.ptr + off, b);
  }

  /** Appends a little-endian u32 and returns its offset. */
  putU32(v: u32): usize {
    const off = this.reserve(4);
    store<u32>(this.ptr + off, v);
    return off;
  }

  /** Overwrites the little-endian u32 at off. */
  setU32(off: usize, v: u32): void {
    store<u32>(this.ptr + off, v);
  }

  /** Returns the address of offset off; valid until the buffer grows. */
  at(off: usize): usize {
    return this.ptr + off;
  }

  /**
   * Releases a buffer that one large use grew past 64 KiB, so that a rare
   * huge value does not pin memory for the life of the instance.
   */
  trim(): void {
    this.len = 0;
    if (this.cap <= maxRetained) return;
    heap.free(this.ptr);
    this.ptr = 0;
    this.cap = 0;
  }

  private grow(need: usize): void {
    let cap = this.cap == 0 ? this.initial : this.cap;
    while (cap < need) {
      if (cap >= <usize>(1 << 30)) { cap = need; break; } // doubling would overflow
      cap <<= 1;
    }
    this.ptr = this.ptr == 0 ? heap.alloc(cap) : heap.realloc(this.ptr, cap);
    this.cap = cap;
  }
}
