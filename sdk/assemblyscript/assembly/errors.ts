import { Code, codeName } from "./codes";

// AssemblyScript has no exceptions that an operator could catch, so the SDK
// returns errors as values: every call that can fail returns `Error | null`
// (null on success), and Operator.process returns the same type. Errors
// that come from the host are HostErrors, which carry the ABI code.

/**
 * A failed host call: the operation, the object it was about (a state name,
 * a map entry as `name[key]`, an output name) and the ABI code. Test the kind
 * with `err instanceof HostError && (err as HostError).code == Code.TOO_LARGE`.
 */
export class HostError extends Error {
  /** The ABI code the host returned, or BAD_ARGUMENT for a check the SDK made first. */
  code: i32;
  /** "state get", "state put", "state delete", "map get", "emit", ... */
  op: string;
  /** The state name, map entry or output name the call was about. */
  subject: string;

  constructor(code: i32, op: string, subject: string, detail: string = "") {
    super("wasmstream: " + op + " \"" + subject + "\": " + (detail.length ? detail + " " : "") + describe(code));
    this.name = "HostError";
    this.code = code;
    this.op = op;
    this.subject = subject;
  }
}

/** describe says what a code means and, where it helps, what to do about it. */
function describe(code: i32): string {
  switch (code) {
    case Code.NOT_FOUND: return "not found (NOT_FOUND)";
    case Code.BAD_POINTER: return "pointer outside guest memory (BAD_POINTER)";
    case Code.BAD_ARGUMENT: return "bad argument: a name is empty or too long, or headers are malformed (BAD_ARGUMENT)";
    case Code.NO_RECORD: return "state or emit call outside process (NO_RECORD)";
    case Code.TOO_LARGE: return "value over the operator's size limit; keep values smaller or raise limits.max_value_bytes (TOO_LARGE)";
    case Code.UNKNOWN_OUTPUT: return "output not wired in the pipeline config; add it to the operator's outputs (UNKNOWN_OUTPUT)";
    case Code.QUOTA_EXCEEDED: return "too many emits for one record; raise limits.max_emits_per_record (QUOTA_EXCEEDED)";
    case Code.REENTRANT: return "reentrant host call (REENTRANT)";
  }
  return "unknown error code from the host " + codeName(code) + ": the host is probably newer than this SDK";
}

/** DecodeError is returned when stored bytes do not decode with a state's codec. */
export class DecodeError extends Error {
  constructor(op: string, subject: string, reason: string) {
    super("wasmstream: " + op + " \"" + subject + "\": state value does not decode with this codec: " + reason);
    this.name = "DecodeError";
  }
}
