// ledger1 (OPERATORS.md): each record's value is a decimal amount, added to
// the key's total, stored as decimal text (version 1 of the state, never
// declared) and emitted.
import { Operator, Record, ValueState, bytesOf, emit, register } from "@wasmstream/sdk";
import { parseDecimal } from "../common/decimal";

export * from "@wasmstream/sdk/exports";

const total = new ValueState<Uint8Array>("total");

class Ledger extends Operator {
  process(r: Record): Error | null {
    const amount = parseDecimal(r.value);
    if (!amount.ok) return new Error("ledger1: the amount must be a decimal integer of at most 18 digits");
    const got = total.get();
    if (got.error != null) return got.error;
    let sum: i64 = 0;
    if (got.found) {
      const stored = parseDecimal(got.value);
      if (!stored.ok) return new Error("ledger1: the stored total is not a decimal integer");
      sum = stored.value;
    }
    const text = bytesOf((sum + amount.value).toString());
    const err = total.put(text);
    if (err != null) return err;
    return emit("out", r.key, text);
  }
}

register(new Ledger());
