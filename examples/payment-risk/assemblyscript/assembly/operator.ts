import { Header, MapState, Operator, Record, ValueState, bytesOf, emit, equalBytes, logDebug } from "@wasmstream/sdk";
import { JsonWriter } from "@wasmstream/sdk/json";
import { parseConfig } from "./config";
import { Payment, parsePayment } from "./payment";

// State, scoped by the host to the account of the current record.

/** total is the account's running total in cents. */
const total = new ValueState<i64>("total");
/** seen holds the event ids already counted for the account. */
const seen = new MapState<bool>("seen");

/** RiskOperator keeps running totals per account. */
export class RiskOperator extends Operator {
  private maxCents: i64 = 0;

  /** init reads the optional config. */
  init(config: Uint8Array): Error | null {
    const cfg = parseConfig(config);
    if (cfg.error != null) return new Error(cfg.error!);
    this.maxCents = cfg.maxCents;
    return null;
  }

  /**
   * process adds an event to its account's total once, however often it is
   * delivered, and emits the new total.
   */
  process(r: Record): Error | null {
    const ev = parsePayment(r.value, this.maxCents);
    if (ev.error != null) return new Error(ev.error!);
    const account = bytesOf(ev.account);
    if (!equalBytes(account, r.key)) {
      // State is scoped by the record key: a total kept under another key
      // would be wrong without any error, so refuse the record.
      return new Error("bad payment event: event " + ev.event + ": account \"" + ev.account +
        "\" does not match the record key \"" + r.keyString() + "\"");
    }
    const dup = seen.get(ev.event);
    if (dup.error != null) return dup.error;
    if (dup.found) {
      logDebug("duplicate event " + ev.event + " for account " + ev.account + " ignored");
      return null;
    }
    return this.accept(ev, account);
  }

  /** accept adds ev to the total, remembers its id and emits the result. */
  private accept(ev: Payment, account: Uint8Array): Error | null {
    const got = total.get();
    if (got.error != null) return got.error;
    let sum = got.or(0);
    if (ev.cents > i64.MAX_VALUE - sum) {
      return new Error("bad payment event: event " + ev.event + ": total of account " + ev.account + " would overflow");
    }
    sum += ev.cents;
    let err = total.put(sum);
    if (err != null) return err;
    err = seen.put(ev.event, true);
    if (err != null) return err;
    const out = new JsonWriter()
      .string("account", ev.account)
      .string("event", ev.event)
      .integer("cents", ev.cents)
      .integer("total", sum)
      .finish();
    return emit("out", account, out, [new Header("event-id", ev.event)]);
  }
}
