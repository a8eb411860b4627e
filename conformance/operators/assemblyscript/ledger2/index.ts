// ledger2 (OPERATORS.md): ledger1's running total stored as {"total":N},
// version 2 of the state, with the migration from version 1 that an
// upgrade from ledger1 runs. A total never goes negative.
import { Migrated, Operator, Record, ValueState, emit, register } from "@wasmstream/sdk";
import { parseDecimal } from "../common/decimal";
import { decodeTotal, encodeTotal } from "../common/ledger";

export * from "@wasmstream/sdk/exports";

/** migrateTotal converts a version-1 total (decimal text): zero is deleted, a negative total fails the upgrade. */
function migrateTotal(name: Uint8Array, fromVersion: i32, old: Uint8Array): Migrated {
  if (fromVersion != 1) return Migrated.failed(new Error("ledger2: no migration from version " + fromVersion.toString()));
  const n = parseDecimal(old);
  if (!n.ok) return Migrated.failed(new Error("ledger2: the version 1 total is not a decimal integer"));
  if (n.value == 0) return Migrated.deleted();
  if (n.value < 0) return Migrated.failed(new Error("ledger2: a total cannot be negative: version 1 holds " + n.value.toString()));
  return Migrated.bytes(encodeTotal(n.value));
}

const total = new ValueState<Uint8Array>("total").declareWith({ version: 2, migrate: migrateTotal });

class Ledger extends Operator {
  process(r: Record): Error | null {
    const amount = parseDecimal(r.value);
    if (!amount.ok) return new Error("ledger2: the amount must be a decimal integer of at most 18 digits");
    const got = total.get();
    if (got.error != null) return got.error;
    let sum: i64 = 0;
    if (got.found) {
      const stored = decodeTotal(got.value);
      if (!stored.ok) return new Error("ledger2: the stored total is not {\"total\":N}");
      sum = stored.value;
    }
    if (sum + amount.value < 0) return new Error("ledger2: a total cannot be negative");
    const value = encodeTotal(sum + amount.value);
    const err = total.put(value);
    if (err != null) return err;
    return emit("out", r.key, value);
  }
}

register(new Ledger());
