import { hostStateDelete, hostStateGet, hostStatePut } from "./host";
import { Code } from "./codes";
import { Scratch } from "./scratch";
import { Phase, currentPhase } from "./call";

// What ValueState and MapState share: the state_get retry protocol, put and
// delete, state-name checks, and the list of setup problems.

/** Longest state name, map entries included (abi.MaxStateNameLen). */
export const maxStateNameLen: i32 = 1024;

/** readBuf receives values from state_get; most values (counters, flags) fit the first size. */
const readBuf = new Scratch(256);

/**
 * lastRead is the last small array readState returned. It is reused when
 * the next value has the same length (a counter's 8 bytes, a flag's 1),
 * which saves two allocations per read; codecs must therefore not keep the
 * bytes. Only small arrays are kept, so that one large value is not pinned.
 */
let lastRead = new Uint8Array(0);

/** The largest array lastRead keeps. */
const maxReused = 256;

/**
 * readState reads the value of the state named by the bytes at namePtr.
 * It returns the value, valid until the next readState, or null when there
 * is none, and stores a negative host code in lastCode on failure.
 */
export function readState(namePtr: usize, nameLen: usize): Uint8Array | null {
  lastCode = Code.OK;
  readBuf.ensure(256);
  let n = hostStateGet(namePtr, nameLen, readBuf.ptr, readBuf.cap);
  while (n >= 0 && <usize>n > readBuf.cap) {
    // The host wrote nothing: grow to the announced length and ask again.
    readBuf.ensure(<usize>n);
    n = hostStateGet(namePtr, nameLen, readBuf.ptr, readBuf.cap);
  }
  if (n == Code.NOT_FOUND) return null;
  if (n < 0) {
    lastCode = n;
    return null;
  }
  let out = lastRead;
  if (out.byteLength != n) {
    out = new Uint8Array(n);
    if (n <= maxReused) lastRead = out;
  }
  memory.copy(out.dataStart, readBuf.ptr, <usize>n);
  readBuf.trim();
  return out;
}

/** lastCode is the host code of the last failed readState, or OK. */
export let lastCode: i32 = Code.OK;

/** writeState stores len bytes at valPtr under the name; returns the host code. */
export function writeState(namePtr: usize, nameLen: usize, value: Uint8Array): i32 {
  return hostStatePut(namePtr, nameLen, value.dataStart, <usize>value.byteLength);
}

/** deleteState removes the name; returns the host code. */
export function deleteState(namePtr: usize, nameLen: usize): i32 {
  return hostStateDelete(namePtr, nameLen);
}

/**
 * checkStateName returns why name cannot name a state of the given kind
 * (empty, too long, or containing a NUL byte, which separates a map's name
 * from its keys and could make a value collide with a map entry), or null.
 */
export function checkStateName(kind: string, name: string, nameBytes: Uint8Array, maxLen: i32): string | null {
  if (nameBytes.byteLength == 0) return kind + ": empty state name";
  if (nameBytes.byteLength > maxLen) {
    return kind + " \"" + name + "\": state name of " + nameBytes.byteLength.toString() +
      " bytes is longer than " + maxLen.toString() + " bytes";
  }
  if (nameBytes.includes(0)) return kind + " \"" + name + "\": state name contains a NUL byte";
  return null;
}

/**
 * Setup problems: a bad state name, a missing codec, a second register.
 * State handles are usually created while the module starts, where the
 * SDK cannot log; ws_init logs these and fails the instance instead, so the
 * problem surfaces at once with its reason.
 */
let setupErrors: Array<string> | null = null;

/**
 * noteSetupError records a setup problem for ws_init to report. During
 * process it records nothing: a handle made there reports its problem from
 * every call instead, and noting it would grow the list with every record.
 */
export function noteSetupError(msg: string): void {
  if (currentPhase() == Phase.Process) return;
  let list = setupErrors;
  if (list == null) {
    list = new Array<string>();
    setupErrors = list;
  }
  list.push("wasmstream: " + msg);
}

/** takeSetupErrors returns the setup problems recorded so far and forgets them. */
export function takeSetupErrors(): Array<string> {
  const list = setupErrors;
  setupErrors = null;
  return list == null ? new Array<string>() : list;
}
