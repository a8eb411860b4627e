// ttldedup (OPERATORS.md): the first delivery of each id per key within a
// TTL wins, through the SDK's dedup helper. The id is the record's value.
// Config: empty (TTL 60000 ms) or {"ttl_ms":N} with N >= 1; anything else
// is rejected (GUEST_CONFIG).
import { Dedup, Operator, Record, emit, register } from "@wasmstream/sdk";
import { FlatObject, JsonKind } from "@wasmstream/sdk/json";

export * from "@wasmstream/sdk/exports";

/** The TTL without a config, in milliseconds. */
const defaultTtlMs: i64 = 60_000;

class TtlDedup extends Operator {
  private seen: Dedup | null = null;

  init(config: Uint8Array): Error | null {
    let ttlMs = defaultTtlMs;
    if (config.length > 0) {
      const obj = FlatObject.parse(config);
      const err = obj.error;
      if (err != null) return rejected(err);
      for (let i = 0; i < obj.length; i++) {
        if (obj.nameAt(i) != "ttl_ms") return rejected("unknown field \"" + obj.nameAt(i) + "\"");
      }
      if (obj.kind("ttl_ms") != JsonKind.Integer) return rejected("ttl_ms must be an integer");
      ttlMs = obj.getInteger("ttl_ms");
      if (ttlMs < 1) return rejected("ttl_ms is " + ttlMs.toString() + ", want 1 or more");
    }
    this.seen = new Dedup("seen", ttlMs);
    return null;
  }

  process(r: Record): Error | null {
    const dup = this.seen!.isDuplicateBytes(r.value);
    if (dup.error != null) return dup.error;
    if (dup.value) return null;
    return emit("out", r.key, r.value);
  }
}

function rejected(why: string): Error {
  return new Error("ttldedup config: want no config or {\"ttl_ms\": N} with N >= 1: " + why);
}

register(new TtlDedup());
