import { hostAbort, hostLog } from "./host";
import { hostCallsAllowed } from "./call";

// The module's abort handler, wired in with `--use abort=...` (see the
// SDK's asconfig.json). AssemblyScript calls it on a failed assert, an
// out-of-range index, a null dereference or a failed allocation. It logs
// the message at error level when host calls are allowed, so the line is
// attributed to the record, and then traps through env.abort, whose error
// on the host carries the message too.
//
// It must not allocate: it also runs when the allocator has failed. And
// this file must import nothing that allocates in a top-level statement:
// the compiler compiles the abort handler together with the runtime, and
// such a statement would then run in the start function before the
// runtime's own globals are set up (seen: an assertion in itcms visitRoots
// at the first allocation).

/** Level.Error of log.ts, which this file must not import (see above). */
const levelError: i32 = 4;

/** Room for one abort line; longer messages are cut. */
const lineCap: usize = 1024;
const line = memory.data(<i32>lineCap);

/** The abort handler. Never returns. */
export function wsAbort(message: string | null, fileName: string | null, lineNumber: u32, columnNumber: u32): void {
  if (hostCallsAllowed()) {
    let n = appendString(0, "wasmstream: abort: ");
    n = appendString(n, message);
    n = appendString(n, " at ");
    n = appendString(n, fileName);
    n = appendString(n, ":");
    n = appendUint(n, lineNumber);
    n = appendString(n, ":");
    n = appendUint(n, columnNumber);
    hostLog(levelError, line, n);
  }
  hostAbort(changetype<usize>(message), changetype<usize>(fileName), lineNumber, columnNumber);
  unreachable();
}

/** appendString appends s as UTF-8 (lone surrogates as "?") and returns the new length. */
function appendString(n: usize, s: string | null): usize {
  if (s == null) return appendString(n, "?");
  const p = changetype<usize>(s);
  const units = <usize>s.length;
  for (let i: usize = 0; i < units; i++) {
    let c = <u32>load<u16>(p + (i << 1));
    if (c >= 0xD800 && c < 0xDC00 && i + 1 < units) {
      const d = <u32>load<u16>(p + ((i + 1) << 1));
      if (d >= 0xDC00 && d < 0xE000) {
        c = 0x10000 + ((c - 0xD800) << 10) + (d - 0xDC00);
        i++;
      }
    }
    if (c >= 0xD800 && c < 0xE000) c = 0x3F;
    if (!fits(n, c < 0x80 ? 1 : c < 0x800 ? 2 : c < 0x10000 ? 3 : 4)) return n;
    n = putRune(n, c);
  }
  return n;
}

function appendUint(n: usize, v: u32): usize {
  let digits: usize = 1;
  for (let t = v; t >= 10; t /= 10) digits++;
  if (!fits(n, digits)) return n;
  for (let i = digits; i > 0; i--) {
    store<u8>(line + n + i - 1, 0x30 + v % 10);
    v /= 10;
  }
  return n + digits;
}

function fits(n: usize, more: usize): bool {
  return n + more <= lineCap;
}

function putRune(n: usize, c: u32): usize {
  if (c < 0x80) {
    store<u8>(line + n, c);
    return n + 1;
  }
  if (c < 0x800) {
    store<u8>(line + n, 0xC0 | (c >> 6));
    store<u8>(line + n + 1, 0x80 | (c & 0x3F));
    return n + 2;
  }
  if (c < 0x10000) {
    store<u8>(line + n, 0xE0 | (c >> 12));
    store<u8>(line + n + 1, 0x80 | ((c >> 6) & 0x3F));
    store<u8>(line + n + 2, 0x80 | (c & 0x3F));
    return n + 3;
  }
  store<u8>(line + n, 0xF0 | (c >> 18));
  store<u8>(line + n + 1, 0x80 | ((c >> 12) & 0x3F));
  store<u8>(line + n + 2, 0x80 | ((c >> 6) & 0x3F));
  store<u8>(line + n + 3, 0x80 | (c & 0x3F));
  return n + 4;
}
