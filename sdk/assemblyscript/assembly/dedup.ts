import { Code } from "./codes";
import { StateOptions, Ttl, declareState } from "./declare";
import { HostError } from "./errors";
import { Got, failed } from "./got";
import { Scratch } from "./scratch";
import { checkStateName, lastCode, maxStateNameLen, noteSetupError, readState, writeState } from "./state";
import { bytesOf, decodeUtf8 } from "./utf8";

/** entryBuf holds the host name of the entry being checked: name, NUL, id. */
const entryBuf = new Scratch(128);

/** The value of a remembered id. */
const one = new Uint8Array(1);
one[0] = 1;

/**
 * Dedup remembers ids per record key for a time, to drop redelivered
 * events. It is a map state whose entries are name + "\0" + id = 0x01 (the
 * layout every SDK shares), declared with a TTL on create and write, never
 * returning expired entries, in processing time. The TTL must cover the
 * longest time a duplicate can arrive after the original: a redelivery
 * after the TTL is processed again. Make it at the top level of the module
 * (or in init), which declares it:
 *
 *     const seen = new Dedup("seen", 24 * 3600 * 1000);
 *
 *     // in process:
 *     const dup = seen.isDuplicate(eventId);
 *     if (dup.error) return dup.error;
 *     if (dup.value) return null;   // seen for this key within the TTL
 */
export class Dedup {
  /** The dedup set's state name. */
  readonly name: string;
  private prefix: Uint8Array;
  private problem: string | null;

  /**
   * Returns the dedup set called name (a map name: 1 to 1023 bytes of
   * UTF-8, no NUL) whose ids live ttlMs milliseconds (1 or more), and
   * declares it. A bad name or TTL makes ws_init fail with the reason.
   */
  constructor(name: string, ttlMs: i64) {
    this.name = name;
    const nameBytes = bytesOf(name);
    this.prefix = new Uint8Array(nameBytes.byteLength + 1);
    this.prefix.set(nameBytes);
    const bad = checkStateName("Dedup", name, nameBytes, maxStateNameLen - 1);
    let problem: string | null = null;
    if (bad != null) {
      noteSetupError(bad);
      problem = "wasmstream: " + bad;
    } else {
      const options = new StateOptions();
      options.ttl = new Ttl(ttlMs);
      const err = declareState(name, options);
      if (err != null) problem = err.message;
    }
    this.problem = problem;
  }

  /** Returns the longest id in bytes: entry names are at most 1024 bytes in all. */
  maxIdLen(): i32 {
    return maxStateNameLen - this.prefix.byteLength;
  }

  /**
   * Reports in value whether id (as UTF-8) was seen for the current
   * record's key within the TTL; when it was not, remembers it (a state
   * write, dropped with the record if the record fails). found is false
   * and error set when the check failed. The id is scoped to the key: key
   * the records by the event id to deduplicate across all keys.
   */
  isDuplicate(id: string): Got<bool> {
    entryBuf.reset();
    entryBuf.putBytes(this.prefix.dataStart, <usize>this.prefix.byteLength);
    entryBuf.putUtf8(id);
    return this.check();
  }

  /** isDuplicate for an id of any bytes (a record's value, say). */
  isDuplicateBytes(id: Uint8Array): Got<bool> {
    entryBuf.reset();
    entryBuf.putBytes(this.prefix.dataStart, <usize>this.prefix.byteLength);
    entryBuf.putBytes(id.dataStart, <usize>id.byteLength);
    return this.check();
  }

  /** check looks the entry in entryBuf up and remembers it when absent. */
  private check(): Got<bool> {
    const problem = this.problem;
    if (problem != null) return failed<bool>(new Error(problem));
    const idLen = <i32>entryBuf.len - this.prefix.byteLength;
    if (idLen > this.maxIdLen()) {
      const label = this.label();
      entryBuf.trim();
      return failed<bool>(new HostError(Code.BAD_ARGUMENT, "dedup", label,
        "id of " + idLen.toString() + " bytes is over maxIdLen " + this.maxIdLen().toString() + ":"));
    }
    const found = readState(entryBuf.ptr, entryBuf.len);
    if (found == null && lastCode != Code.OK) return this.failure(lastCode, "map get");
    if (found != null) return this.result(true);
    const code = writeState(entryBuf.ptr, entryBuf.len, one);
    if (code < 0) return this.failure(code, "map put");
    return this.result(false);
  }

  private result(duplicate: bool): Got<bool> {
    entryBuf.trim();
    return new Got<bool>(true, duplicate, null);
  }

  private failure(code: i32, op: string): Got<bool> {
    const label = this.label();
    entryBuf.trim();
    return failed<bool>(new HostError(code, op, label));
  }

  /** label names the entry in entryBuf in errors: name[id] (invalid UTF-8 as U+FFFD). */
  private label(): string {
    const n = <usize>this.prefix.byteLength;
    return this.name + "[" + decodeUtf8(entryBuf.ptr + n, entryBuf.len - n) + "]";
  }
}
