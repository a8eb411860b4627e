import { Code } from "./codes";
import { migrationOf } from "./declare";
import { Level, log } from "./log";
import { bytesOf, decodeUtf8 } from "./utf8";

// State migrations (ABI revision 1.2, ws_migrate, abi/ABI.md section 4.1):
// the conversion of values stored under an older version of a state, which
// the host asks of a new module during an upgrade, before its first record.

/**
 * What a migration makes of one stored value: a new value, a deletion, or
 * an error that fails the upgrade (the host then writes nothing and the
 * old module keeps running).
 */
export class Migrated {
  private constructor(
    /** The new value; null deletes the value (when error is null). */
    public value: Uint8Array | null,
    /** Why the value cannot be converted, or null. */
    public error: Error | null,
  ) {}

  /** The value is replaced by value. */
  static bytes(value: Uint8Array): Migrated {
    return new Migrated(value, null);
  }

  /** The value is replaced by text, as UTF-8. */
  static text(text: string): Migrated {
    return new Migrated(bytesOf(text), null);
  }

  /** The value is deleted. */
  static deleted(): Migrated {
    return new Migrated(null, null);
  }

  /** The value cannot be converted: the upgrade fails with this reason. */
  static failed(error: Error): Migrated {
    return new Migrated(null, error);
  }
}

/**
 * A migration: the stored name (for a map entry, the map's name, a zero
 * byte and the entry's key), the version the value was written under, and
 * the value. A top-level function: AssemblyScript has no closures.
 */
export type MigrateFn = (name: Uint8Array, fromVersion: i32, old: Uint8Array) => Migrated;

/** The last migrated value: the host reads it after ws_migrate returned. */
let migrated = new Uint8Array(0);

/**
 * migrateValue runs the migration declared for the state of the stored
 * name at namePtr on the value at valPtr, and returns ws_migrate's result.
 */
export function migrateValue(namePtr: usize, nameLen: usize, fromVersion: i32, valPtr: usize, valLen: usize): i64 {
  const name = copyOf(namePtr, nameLen);
  const base = baseName(name);
  const migrate = migrationOf(decodeUtf8(name.dataStart, base));
  if (migrate == null) {
    log(Level.Error, "wasmstream: no migration declared for state " + describe(name, base) +
      " (StateOptions.migrate) but the host asked to migrate it from version " + fromVersion.toString());
    return Code.GUEST_INTERNAL;
  }
  const res = migrate(name, fromVersion, copyOf(valPtr, valLen));
  const err = res.error;
  if (err != null) {
    log(Level.Error, "wasmstream: migration of state " + describe(name, base) + " from version " +
      fromVersion.toString() + " failed: " + err.message);
    return Code.GUEST_INTERNAL;
  }
  const value = res.value;
  if (value == null) return Code.NOT_FOUND;
  migrated = value;
  return (<i64>value.byteLength << 32) | <i64>value.dataStart;
}

/** copyOf copies len bytes at ptr out of the host's buffer. */
function copyOf(ptr: usize, len: usize): Uint8Array {
  const b = new Uint8Array(<i32>len);
  memory.copy(b.dataStart, ptr, len);
  return b;
}

/** baseName is the length of the state's name in a stored name (up to the zero byte of a map entry). */
function baseName(name: Uint8Array): usize {
  const i = name.indexOf(0);
  return <usize>(i < 0 ? name.length : i);
}

/** describe names the state, and the entry of a map, in quotes. */
function describe(name: Uint8Array, base: usize): string {
  const state = "\"" + decodeUtf8(name.dataStart, base) + "\"";
  if (base == <usize>name.length) return state;
  return state + " (entry \"" + decodeUtf8(name.dataStart + base + 1, <usize>name.length - base - 1) + "\")";
}
