import { Phase, currentPhase } from "./call";
import { Code } from "./codes";
import { Codec, defaultCodec } from "./codec";
import { StateOptions, declareState } from "./declare";
import { DecodeError, HostError } from "./errors";
import { Got, absent, failed } from "./got";
import { Level, log } from "./log";
import { checkStateName, deleteState, lastCode, maxStateNameLen, noteSetupError, readState, writeState } from "./state";
import { bytesOf } from "./utf8";

/**
 * ValueState is one value of type T per key, stored by the host under a
 * name. Every call addresses the key of the record being processed, so a
 * ValueState is declared once, usually at the top level of the module, and
 * used from process:
 *
 *     const total = new ValueState<i64>("total");
 */
export class ValueState<T> {
  /** The state name. */
  readonly name: string;
  private nameBytes: Uint8Array;
  private codec: Codec<T> | null;
  private problem: string | null;

  /**
   * Returns the state called name (1 to 1024 bytes of UTF-8, no NUL),
   * encoded with codec, or with the built-in codec of T (i64, u64, f64,
   * bool, string, Uint8Array) when codec is null. A bad name or a missing
   * codec makes ws_init fail with the reason (or, for a state made during
   * process, every call return it).
   */
  constructor(name: string, codec: Codec<T> | null = null) {
    this.name = name;
    this.nameBytes = bytesOf(name);
    this.codec = codec != null ? codec : defaultCodec<T>();
    let problem = checkStateName("ValueState", name, this.nameBytes, maxStateNameLen);
    if (problem == null && this.codec == null) {
      problem = "ValueState \"" + name + "\": no built-in codec for " + nameof<T>() + ": pass a Codec<" + nameof<T>() + ">";
    }
    this.problem = problem;
    if (problem != null) noteSetupError(problem);
  }

  /**
   * Declares the state's version and TTL (see declareState) and returns
   * this, so a top-level state is declared in one expression:
   *
   *     const total = new ValueState<i64>("total").declareWith({ version: 2, noTtl: true });
   *
   * A bad declaration makes ws_init fail with the reason; one made during
   * process is logged at error level and ignored.
   */
  declareWith(options: StateOptions): ValueState<T> {
    if (this.problem != null) return this; // already reported by ws_init
    const err = declareState(this.name, options);
    if (err != null && currentPhase() == Phase.Process) log(Level.Error, err.message);
    return this;
  }

  /** Returns the current key's value (found = false when it has none). */
  get(): Got<T> {
    const problem = this.problem;
    if (problem != null) return failed<T>(new Error("wasmstream: " + problem));
    const raw = readState(this.nameBytes.dataStart, <usize>this.nameBytes.byteLength);
    if (raw == null) {
      if (lastCode == Code.OK) return absent<T>();
      return failed<T>(new HostError(lastCode, "state get", this.name));
    }
    const codec = this.codec!;
    const why = codec.check(raw);
    if (why != null) return failed<T>(new DecodeError("state get", this.name, why));
    return new Got<T>(true, codec.decode(raw), null);
  }

  /** Sets the current key's value. */
  put(value: T): Error | null {
    const problem = this.problem;
    if (problem != null) return new Error("wasmstream: " + problem);
    const code = writeState(this.nameBytes.dataStart, <usize>this.nameBytes.byteLength, this.codec!.encode(value));
    return code < 0 ? new HostError(code, "state put", this.name) : null;
  }

  /** Removes the current key's value; removing a missing value is not an error. */
  delete(): Error | null {
    const problem = this.problem;
    if (problem != null) return new Error("wasmstream: " + problem);
    const code = deleteState(this.nameBytes.dataStart, <usize>this.nameBytes.byteLength);
    return code < 0 ? new HostError(code, "state delete", this.name) : null;
  }
}
