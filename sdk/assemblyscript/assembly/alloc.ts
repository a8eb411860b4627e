// The buffer ws_alloc hands to the host for config bytes and batches
// (abi/ABI.md section 3.4). It lives in unmanaged memory (heap.alloc): the
// garbage collector neither moves nor frees it, and the host owns it until
// the next ws_alloc, when the SDK frees it.

/** The smallest buffer handed out, so that small batches that grow a little do not reallocate. */
const minAlloc: usize = 64 << 10;

let bufPtr: usize = 0;
let bufCap: usize = 0;

/**
 * Returns a buffer of at least size bytes. The current one is reused when
 * it is big enough; otherwise it is freed and a new one allocated.
 * Contents are not preserved: the host rewrites them for every call.
 */
export function allocHostBuffer(size: usize): usize {
  if (bufPtr != 0 && size <= bufCap) return bufPtr;
  if (bufPtr != 0) {
    heap.free(bufPtr);
    bufPtr = 0;
    bufCap = 0;
  }
  const cap = max(size, minAlloc);
  bufPtr = heap.alloc(cap);
  bufCap = cap;
  return bufPtr;
}

/**
 * Reports whether [ptr, ptr+len) lies in the buffer from allocHostBuffer,
 * where the host must have written a config or a batch. An empty range is
 * always valid.
 */
export function inHostBuffer(ptr: usize, len: usize): bool {
  if (len == 0) return true;
  return bufPtr != 0 && ptr >= bufPtr && len <= bufCap && ptr - bufPtr <= bufCap - len;
}
