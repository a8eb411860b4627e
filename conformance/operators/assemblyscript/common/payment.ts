import { FlatObject, JsonKind } from "@wasmstream/sdk/json";

/** Payment is one payment event (OPERATORS.md, counter and join input 0). */
export class Payment {
  account: string = "";
  event: string = "";
  cents: i64 = 0;
  /** Why the value is not a valid payment, or null. */
  error: string | null = null;
}

/**
 * parsePayment decodes and validates a payment. maxCents 0 means no limit.
 * The rules are the Go example's: account and event must be non-empty
 * strings, cents a non-negative integer; a null field counts as missing.
 */
export function parsePayment(value: Uint8Array, maxCents: i64): Payment {
  const p = new Payment();
  const obj = FlatObject.parse(value);
  const err = obj.error;
  if (err != null) return bad(p, "not valid JSON: " + err);
  if (!textOrMissing(obj, "account") || !textOrMissing(obj, "event")) {
    return bad(p, "account and event must be strings");
  }
  p.account = obj.getString("account");
  p.event = obj.getString("event");
  const cents = obj.kind("cents");
  if (p.account.length == 0) return bad(p, "missing account");
  if (p.event.length == 0) return bad(p, "missing event id");
  if (cents == JsonKind.Missing || cents == JsonKind.Null) return bad(p, "event " + p.event + ": missing cents");
  if (cents != JsonKind.Integer) return bad(p, "event " + p.event + ": cents must be an integer");
  p.cents = obj.getInteger("cents");
  if (p.cents < 0) return bad(p, "event " + p.event + ": negative cents " + p.cents.toString());
  if (maxCents > 0 && p.cents > maxCents) {
    return bad(p, "event " + p.event + ": " + p.cents.toString() + " cents is over max_cents " + maxCents.toString());
  }
  return p;
}

function textOrMissing(obj: FlatObject, name: string): bool {
  const k = obj.kind(name);
  return k == JsonKind.String || k == JsonKind.Missing || k == JsonKind.Null;
}

function bad(p: Payment, why: string): Payment {
  p.error = "bad payment: " + why;
  return p;
}
