// A payment-risk-like operator for the memory test: JSON in, state, JSON out.
import { Header, MapState, Operator, Record, ValueState, emit, register } from "@wasmstream/sdk";
import { FlatObject, JsonWriter } from "@wasmstream/sdk/json";
export * from "@wasmstream/sdk/exports";

const total = new ValueState<i64>("total");
const seen = new MapState<bool>("seen");

class Op extends Operator {
  process(r: Record): Error | null {
    const obj = FlatObject.parse(r.value);
    if (obj.error != null) return new Error(obj.error!);
    const event = obj.getString("event");
    const dup = seen.get(event);
    if (dup.error) return dup.error;
    if (dup.found) return null;
    const got = total.get();
    if (got.error) return got.error;
    const sum = got.or(0) + obj.getInteger("cents");
    let err = total.put(sum);
    if (err) return err;
    err = seen.put(event, true);
    if (err) return err;
    const out = new JsonWriter().string("account", obj.getString("account")).string("event", event)
      .integer("cents", obj.getInteger("cents")).integer("total", sum).finish();
    return emit("out", r.key, out, [new Header("event-id", event)]);
  }
}
register(new Op());
