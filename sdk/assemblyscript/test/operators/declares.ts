// State declarations (ABI 1.1) and the dedup helper. The config picks what
// init declares besides the top-level declarations:
//   ""            plain (nothing about TTL), and total again (v2, never expires)
//   "reject"      the config is rejected
//   "bad-version" a negative version, result ignored
//   "bad-ttl"     a dedup set with a TTL of 0 ms
// A record whose value is "late" declares from process and emits the error;
// "late-handle" declares through a handle (logged); "s:<id>" checks <id> as
// a string; any other value is an id of dedup set "seen", emitted (key and
// value) the first time per key, except that an id starting with "fail"
// then fails its record.
import {
  Dedup, MapState, Operator, Record, StateOptions, Ttl, ValueState, declareState, emit, emitString, register,
} from "@wasmstream/sdk";

export * from "@wasmstream/sdk/exports";

const total = new ValueState<i64>("total").declareWith({ version: 5 });
const notes = new MapState<string>("notes").declareWith({
  version: 3,
  ttl: new Ttl(90_000).onReadAndWrite().returnExpiredIfNotCleaned().inEventTime(),
});
const seen = new Dedup("seen", 1500);

class Declares extends Operator {
  init(config: Uint8Array): Error | null {
    const cfg = String.UTF8.decode(config.buffer);
    const err = declareState("plain", new StateOptions());
    if (err != null) return err;
    // Replaces the top-level declaration of total, keeping its place.
    total.declareWith({ version: 2, noTtl: true });
    if (cfg == "reject") return new Error("config rejected on purpose");
    if (cfg == "bad-version") declareState("v", { version: -1 });
    if (cfg == "bad-ttl") new Dedup("x", 0);
    return null;
  }

  process(r: Record): Error | null {
    const v = r.valueString();
    if (v == "late") {
      const err = declareState("late", new StateOptions());
      return emitString("out", r.keyString(), err != null ? err.message : "accepted");
    }
    if (v == "late-handle") {
      notes.declareWith(new StateOptions());
      return null;
    }
    const dup = v.startsWith("s:") ? seen.isDuplicate(v.substring(2)) : seen.isDuplicateBytes(r.value);
    if (dup.error != null) return dup.error;
    if (dup.value) return null;
    if (v.startsWith("fail")) return new Error("failing on purpose");
    return emit("out", r.key, r.value);
  }
}

register(new Declares());
