// dedup (OPERATORS.md): the first delivery of each key wins.
import { Operator, Record, ValueState, emit, register } from "@wasmstream/sdk";

export * from "@wasmstream/sdk/exports";

const seen = new ValueState<bool>("seen");

class Dedup extends Operator {
  process(r: Record): Error | null {
    const got = seen.get();
    if (got.error != null) return got.error;
    if (got.found) return null;
    const err = seen.put(true);
    if (err != null) return err;
    return emit("out", r.key, r.value);
  }
}

register(new Dedup());
