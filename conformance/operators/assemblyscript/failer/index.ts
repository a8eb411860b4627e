// failer (OPERATORS.md): fails on marked records, traps on "trap", counts
// and forwards everything else.
import { Header, Operator, Record, ValueState, emit, register } from "@wasmstream/sdk";

export * from "@wasmstream/sdk/exports";

const count = new ValueState<i64>("count");

class Failer extends Operator {
  process(r: Record): Error | null {
    const v = r.value;
    if (v.length >= 4 && v[0] == 0x66 && v[1] == 0x61 && v[2] == 0x69 && v[3] == 0x6C) {
      return new Error("record marked to fail");
    }
    if (v.length == 4 && v[0] == 0x74 && v[1] == 0x72 && v[2] == 0x61 && v[3] == 0x70) unreachable();
    const got = count.get();
    if (got.error != null) return got.error;
    const n = got.or(0) + 1;
    const err = count.put(n);
    if (err != null) return err;
    return emit("out", r.key, r.value, [new Header("count", n.toString())]);
  }
}

register(new Failer());
