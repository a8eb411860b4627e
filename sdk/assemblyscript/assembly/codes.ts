// The ABI's error-code registry (abi/ABI.md section 7.1), mirrored under
// the same names. Zero and positive host results are successes (a length,
// a flag); negative ones are these codes.

/** An ABI result code. */
export enum Code {
  /** Success. */
  OK = 0,
  /** state_get: no value for this key and name. */
  NOT_FOUND = -1,
  /** A range lies outside guest memory. Fatal: the host stops the call. */
  BAD_POINTER = -2,
  /** A name length out of range or a malformed header list. */
  BAD_ARGUMENT = -3,
  /** A state, emit or event-time call with no current record. Fatal. */
  NO_RECORD = -4,
  /** A state value or emitted key, value or header list over limits.max_value_bytes. */
  TOO_LARGE = -5,
  /** emit named an output the pipeline does not wire. */
  UNKNOWN_OUTPUT = -6,
  /** The record emitted more than limits.max_emits_per_record records. */
  QUOTA_EXCEEDED = -7,
  /** A host call from inside ws_alloc or outside a host-driven call. Fatal. */
  REENTRANT = -8,
  /** ws_init: the config was rejected. */
  GUEST_CONFIG = -100,
  /** ws_process: the current record failed; the host dead-letters it. */
  GUEST_RECORD = -101,
  /** Any other guest failure. */
  GUEST_INTERNAL = -102,
}

/** Returns the registry name of code, e.g. "NOT_FOUND", or "CODE(-42)". */
export function codeName(code: i32): string {
  switch (code) {
    case Code.OK: return "OK";
    case Code.NOT_FOUND: return "NOT_FOUND";
    case Code.BAD_POINTER: return "BAD_POINTER";
    case Code.BAD_ARGUMENT: return "BAD_ARGUMENT";
    case Code.NO_RECORD: return "NO_RECORD";
    case Code.TOO_LARGE: return "TOO_LARGE";
    case Code.UNKNOWN_OUTPUT: return "UNKNOWN_OUTPUT";
    case Code.QUOTA_EXCEEDED: return "QUOTA_EXCEEDED";
    case Code.REENTRANT: return "REENTRANT";
    case Code.GUEST_CONFIG: return "GUEST_CONFIG";
    case Code.GUEST_RECORD: return "GUEST_RECORD";
    case Code.GUEST_INTERNAL: return "GUEST_INTERNAL";
  }
  return "CODE(" + code.toString() + ")";
}
