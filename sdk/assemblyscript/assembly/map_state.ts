import { Phase, currentPhase } from "./call";
import { Code } from "./codes";
import { Codec, defaultCodec } from "./codec";
import { StateOptions, declareState } from "./declare";
import { DecodeError, HostError } from "./errors";
import { Got, absent, failed } from "./got";
import { Level, log } from "./log";
import { Scratch } from "./scratch";
import { checkStateName, deleteState, lastCode, maxStateNameLen, noteSetupError, readState, writeState } from "./state";
import { bytesOf } from "./utf8";

/** entryBuf holds the host name of the map entry being accessed: name, NUL, map key. */
const entryBuf = new Scratch(128);

/**
 * MapState is a map from string keys to V per record key, stored by the
 * host as one state entry per map key, named name + "\0" + mapKey (the
 * convention every SDK shares). Like ValueState, every call addresses the
 * key of the record being processed. The ABI has no scan, so a MapState
 * cannot be listed: keep an index in a ValueState when you need one.
 *
 *     const seen = new MapState<bool>("seen");
 */
export class MapState<V> {
  /** The map's state name. */
  readonly name: string;
  private prefix: Uint8Array;
  private codec: Codec<V> | null;
  private problem: string | null;

  /**
   * Returns the map called name (1 to 1023 bytes of UTF-8, no NUL), with
   * values encoded by codec, or by the built-in codec of V when codec is
   * null. Problems are reported as for ValueState.
   */
  constructor(name: string, codec: Codec<V> | null = null) {
    this.name = name;
    const nameBytes = bytesOf(name);
    this.prefix = new Uint8Array(nameBytes.byteLength + 1);
    this.prefix.set(nameBytes);
    this.codec = codec != null ? codec : defaultCodec<V>();
    let problem = checkStateName("MapState", name, nameBytes, maxStateNameLen - 1);
    if (problem == null && this.codec == null) {
      problem = "MapState \"" + name + "\": no built-in codec for " + nameof<V>() + ": pass a Codec<" + nameof<V>() + ">";
    }
    this.problem = problem;
    if (problem != null) noteSetupError(problem);
  }

  /**
   * Declares the map's version and TTL (see declareState); each entry
   * expires on its own. Returns this:
   *
   *     const sessions = new MapState<string>("sessions").declareWith({ ttl: new Ttl(60_000).onReadAndWrite() });
   *
   * A bad declaration makes ws_init fail with the reason; one made during
   * process is logged at error level and ignored.
   */
  declareWith(options: StateOptions): MapState<V> {
    if (this.problem != null) return this; // already reported by ws_init
    const err = declareState(this.name, options);
    if (err != null && currentPhase() == Phase.Process) log(Level.Error, err.message);
    return this;
  }

  /** Returns the longest map key in UTF-8 bytes: entry names are at most 1024 bytes in all. */
  maxKeyLen(): i32 {
    return maxStateNameLen - this.prefix.byteLength;
  }

  /** Returns the value under key for the current record key (found = false when none). */
  get(key: string): Got<V> {
    const err = this.entry("map get", key);
    if (err != null) return failed<V>(err);
    const raw = readState(entryBuf.ptr, entryBuf.len);
    if (raw == null) {
      if (lastCode == Code.OK) return absent<V>();
      return failed<V>(new HostError(lastCode, "map get", this.entryLabel(key)));
    }
    const codec = this.codec!;
    const why = codec.check(raw);
    if (why != null) return failed<V>(new DecodeError("map get", this.entryLabel(key), why));
    return new Got<V>(true, codec.decode(raw), null);
  }

  /** Sets the value under key for the current record key. */
  put(key: string, value: V): Error | null {
    if (this.problem != null) return new Error("wasmstream: " + this.problem!);
    // Encode first: a codec of the user's could itself use a MapState,
    // which would overwrite entryBuf.
    const encoded = this.codec!.encode(value);
    const err = this.entry("map put", key);
    if (err != null) return err;
    const code = writeState(entryBuf.ptr, entryBuf.len, encoded);
    return code < 0 ? new HostError(code, "map put", this.entryLabel(key)) : null;
  }

  /** Removes key for the current record key; removing a missing entry is not an error. */
  delete(key: string): Error | null {
    const err = this.entry("map delete", key);
    if (err != null) return err;
    const code = deleteState(entryBuf.ptr, entryBuf.len);
    return code < 0 ? new HostError(code, "map delete", this.entryLabel(key)) : null;
  }

  /** entry writes the host name of key's entry into entryBuf, or returns why it cannot. */
  private entry(op: string, key: string): Error | null {
    const problem = this.problem;
    if (problem != null) return new Error("wasmstream: " + problem);
    entryBuf.reset();
    entryBuf.putBytes(this.prefix.dataStart, <usize>this.prefix.byteLength);
    entryBuf.putUtf8(key);
    const keyLen = <i32>entryBuf.len - this.prefix.byteLength;
    if (keyLen > this.maxKeyLen()) {
      entryBuf.trim();
      return new HostError(Code.BAD_ARGUMENT, op, this.entryLabel(key),
        "map key of " + keyLen.toString() + " bytes is over maxKeyLen " + this.maxKeyLen().toString() + ":");
    }
    return null;
  }

  /** entryLabel names key's entry in errors: name[key]. */
  private entryLabel(key: string): string {
    return this.name + "[" + key + "]";
  }
}
