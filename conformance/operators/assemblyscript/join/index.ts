// join (OPERATORS.md): payments on input 0 checked against per-account
// limits that arrive on input 1.
import { Operator, Record, ValueState, bytesOf, emit, register } from "@wasmstream/sdk";
import { parseDecimal } from "../common/decimal";
import { parsePayment } from "../common/payment";

export * from "@wasmstream/sdk/exports";

const limit = new ValueState<i64>("limit");

class Join extends Operator {
  process(r: Record): Error | null {
    if (r.input == 1) return this.setLimit(r);
    if (r.input == 0) return this.check(r);
    return new Error("record on input " + r.input.toString() + ": join has inputs 0 (payments) and 1 (limits)");
  }

  private setLimit(r: Record): Error | null {
    const d = parseDecimal(r.value);
    if (!d.ok) return new Error("limit \"" + r.valueString() + "\" is not a decimal integer");
    return limit.put(d.value);
  }

  private check(r: Record): Error | null {
    const ev = parsePayment(r.value, 0);
    if (ev.error != null) return new Error(ev.error!);
    const got = limit.get();
    if (got.error != null) return got.error;
    const head = ev.event + "," + ev.cents.toString() + ",";
    let verdict: string;
    if (!got.found) verdict = "none,unknown";
    else verdict = got.value.toString() + (ev.cents > got.value ? ",over" : ",ok");
    return emit("out", r.key, bytesOf(head + verdict));
  }
}

register(new Join());
