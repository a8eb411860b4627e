import { hostEmit } from "./host";
import { HostError } from "./errors";
import { Header } from "./record";
import { Scratch } from "./scratch";

/** emitBuf holds the output name, header list and (emitString) key and value of one emit. */
const emitBuf = new Scratch(256);

/**
 * Sends a record to output, the name of an output that the pipeline file
 * wires for this operator (for example "out"). The host copies key, value
 * and headers. The emit belongs to the record being processed: if process
 * then fails for that record, the host discards it.
 *
 * Errors are HostErrors with code UNKNOWN_OUTPUT, TOO_LARGE,
 * QUOTA_EXCEEDED or BAD_ARGUMENT.
 */
export function emit(output: string, key: Uint8Array, value: Uint8Array, headers: Header[] | null = null): Error | null {
  emitBuf.reset();
  const outOff = emitBuf.putUtf8(output);
  const outLen = emitBuf.len - outOff;
  const hdrOff = emitBuf.len;
  if (headers != null) putHeaders(headers);
  const hdrLen = emitBuf.len - hdrOff;
  const code = hostEmit(
    emitBuf.at(outOff), outLen,
    key.dataStart, <usize>key.byteLength,
    value.dataStart, <usize>value.byteLength,
    emitBuf.at(hdrOff), hdrLen,
  );
  emitBuf.trim();
  return code < 0 ? new HostError(code, "emit", output) : null;
}

/**
 * Like emit, with the key and value given as strings, sent as UTF-8. It
 * allocates nothing on the way, which makes it the cheapest way to emit
 * text such as JSON.
 */
export function emitString(output: string, key: string, value: string, headers: Header[] | null = null): Error | null {
  emitBuf.reset();
  const outOff = emitBuf.putUtf8(output);
  const outLen = emitBuf.len - outOff;
  const keyOff = emitBuf.putUtf8(key);
  const keyLen = emitBuf.len - keyOff;
  const valOff = emitBuf.putUtf8(value);
  const valLen = emitBuf.len - valOff;
  const hdrOff = emitBuf.len;
  if (headers != null) putHeaders(headers);
  const hdrLen = emitBuf.len - hdrOff;
  // Pointers are taken only now: the buffer may have moved while it grew.
  const code = hostEmit(
    emitBuf.at(outOff), outLen,
    emitBuf.at(keyOff), keyLen,
    emitBuf.at(valOff), valLen,
    emitBuf.at(hdrOff), hdrLen,
  );
  emitBuf.trim();
  return code < 0 ? new HostError(code, "emit", output) : null;
}

/** putHeaders appends headers to emitBuf as an ABI header list (abi/ABI.md section 5.2). */
function putHeaders(headers: Header[]): void {
  for (let i = 0, n = headers.length; i < n; i++) {
    const h = unchecked(headers[i]);
    putPart(h.name);
    putPart(h.value);
  }
}

/** putPart appends a u32 length and the UTF-8 of s. */
function putPart(s: string): void {
  const lenOff = emitBuf.putU32(0);
  const off = emitBuf.putUtf8(s);
  emitBuf.setU32(lenOff, <u32>(emitBuf.len - off));
}
