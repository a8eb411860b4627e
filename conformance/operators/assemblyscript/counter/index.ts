// counter (OPERATORS.md): per-account running total with deduplication,
// the payment-risk operator.
import { Header, MapState, Operator, Record, ValueState, bytesOf, emit, equalBytes, logDebug, register } from "@wasmstream/sdk";
import { JsonWriter } from "@wasmstream/sdk/json";
import { parseConfig } from "../common/config";
import { parsePayment } from "../common/payment";

export * from "@wasmstream/sdk/exports";

const total = new ValueState<i64>("total");
const seen = new MapState<bool>("seen");

class Counter extends Operator {
  private maxCents: i64 = 0;

  init(config: Uint8Array): Error | null {
    const cfg = parseConfig(config);
    if (cfg.error != null) return new Error(cfg.error!);
    this.maxCents = cfg.maxCents;
    return null;
  }

  process(r: Record): Error | null {
    const ev = parsePayment(r.value, this.maxCents);
    if (ev.error != null) return new Error(ev.error!);
    const account = bytesOf(ev.account);
    if (!equalBytes(account, r.key)) return new Error("account \"" + ev.account + "\" is not the record key");
    const dup = seen.get(ev.event);
    if (dup.error != null) return dup.error;
    if (dup.found) {
      logDebug("duplicate event " + ev.event + " ignored");
      return null;
    }
    const got = total.get();
    if (got.error != null) return got.error;
    const sum = got.or(0);
    if (ev.cents > i64.MAX_VALUE - sum) return new Error("total of account " + ev.account + " would overflow");
    let err = total.put(sum + ev.cents);
    if (err != null) return err;
    err = seen.put(ev.event, true);
    if (err != null) return err;
    const out = new JsonWriter()
      .string("account", ev.account)
      .string("event", ev.event)
      .integer("cents", ev.cents)
      .integer("total", sum + ev.cents)
      .finish();
    return emit("out", account, out, [new Header("event-id", ev.event)]);
  }
}

register(new Counter());
