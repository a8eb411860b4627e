// Migrations (ABI 1.2). "total" is version 2: its migration turns a decimal
// total of version 1 into {"total":N}, deletes "0" and fails on anything
// else; "limits" (a map) is version 3 and its migration returns the stored
// name; "plain" is version 2 without a migration. A record's value is
// emitted back; the value "state" reads total first, which the host
// refuses during a migration but allows here.
import { MapState, Migrated, Operator, Record, ValueState, declareState, emit, register } from "@wasmstream/sdk";

export * from "@wasmstream/sdk/exports";

function totalToV2(name: Uint8Array, fromVersion: i32, old: Uint8Array): Migrated {
  if (fromVersion != 1) return Migrated.failed(new Error("no migration from version " + fromVersion.toString()));
  const text = String.UTF8.decode(old.buffer);
  if (text == "0") return Migrated.deleted();
  if (text.length == 0 || !isDecimal(text)) return Migrated.failed(new Error("the stored total " + text + " is not a decimal integer"));
  return Migrated.text("{\"total\":" + text + "}");
}

function isDecimal(s: string): bool {
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if ((c < 48 || c > 57) && !(i == 0 && c == 45 && s.length > 1)) return false;
  }
  return true;
}

function storedName(name: Uint8Array, fromVersion: i32, old: Uint8Array): Migrated {
  return Migrated.bytes(name);
}

const total = new ValueState<string>("total").declareWith({ version: 2, migrate: totalToV2 });
const limits = new MapState<i64>("limits").declareWith({ version: 3, migrate: storedName });

class Migrates extends Operator {
  init(config: Uint8Array): Error | null {
    return declareState("plain", { version: 2 });
  }

  process(r: Record): Error | null {
    return emit("out", r.key, r.value);
  }
}

register(new Migrates());
