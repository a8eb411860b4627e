import { hostStateDeclare } from "./host";
import { Phase, currentPhase } from "./call";
import { Code, codeName } from "./codes";
import { Level, log } from "./log";
import { checkStateName, maxStateNameLen, noteSetupError } from "./state";
import { bytesOf } from "./utf8";
import { MigrateFn } from "./migrate";

// State declarations (ABI revision 1.1, state_declare, abi/ABI.md section
// 6.10): what the host needs to know about a named state, its version, its
// time to live and (revision 1.2) how to migrate values of older versions. Declarations made at the top level of the module (its
// start function, where no host function may be called) or in init are
// kept, and ws_init hands them to the host once init returned null.

/** Which accesses move a value's expiry. */
export enum TtlUpdate {
  /** The expiry is set when the value is written. The default. */
  OnCreateAndWrite = 0,
  /** Reads move the expiry too, so a value in use stays. */
  OnReadAndWrite = 1,
}

/** Whether an expired value can still be read. */
export enum TtlVisibility {
  /** An expired value reads as absent. The default. */
  NeverReturnExpired = 0,
  /**
   * An expired value is returned until the host's cleanup removes it:
   * cheaper for the host; use it only when a stale value is harmless.
   */
  ReturnExpiredIfNotCleaned = 1,
}

/**
 * A state's time to live, in milliseconds (1 or more), counted from the
 * last write, never returning expired values, in processing time unless
 * the setters say otherwise:
 *
 *     new Ttl(30 * 60 * 1000).onReadAndWrite()
 */
export class Ttl {
  /** Which accesses move the expiry. */
  update: TtlUpdate = TtlUpdate.OnCreateAndWrite;
  /** Whether an expired value can still be read. */
  visibility: TtlVisibility = TtlVisibility.NeverReturnExpired;
  /**
   * Counts the TTL in the records' event time instead of the host's
   * processing time. A redelivered duplicate carries its original event
   * time, so an event-time TTL measures the data, not an outage.
   */
  eventTime: bool = false;

  constructor(
    /** How long a value lives after its last update, in milliseconds. */
    public durationMs: i64,
  ) {}

  /** Makes reads move the expiry too; returns this. */
  onReadAndWrite(): Ttl {
    this.update = TtlUpdate.OnReadAndWrite;
    return this;
  }

  /** Returns expired values until cleanup removes them; returns this. */
  returnExpiredIfNotCleaned(): Ttl {
    this.visibility = TtlVisibility.ReturnExpiredIfNotCleaned;
    return this;
  }

  /** Counts in event time; returns this. */
  inEventTime(): Ttl {
    this.eventTime = true;
    return this;
  }
}

/**
 * What a module declares about one named state. Fields left out say
 * nothing (an object literal sets only the fields it names):
 *
 *     total.declareWith({ version: 2, noTtl: true });
 *     sessions.declareWith({ ttl: new Ttl(60_000) });
 */
export class StateOptions {
  /** The layout version of the state's values, 1 when 0. Bump it when the encoding changes. */
  version: i32 = 0;
  /** Overrides the pipeline config's TTL of the state; null says nothing (the config decides). */
  ttl: Ttl | null = null;
  /** Never expires, even when the pipeline config gives the state a TTL. Wins over ttl. */
  noTtl: bool = false;
  /**
   * Converts a value stored under an older version (ABI 1.2, ws_migrate)
   * when the module replaces one that wrote it (an upgrade): see MigrateFn.
   * A top-level function. Without it, raising the version makes the host
   * refuse the upgrade before anything is touched.
   */
  migrate: MigrateFn | null = null;
}

/** state_declare's ttl_ms: the module says nothing. */
export const ttlUnset: i64 = 0;
/** state_declare's ttl_ms: never expires. */
export const ttlNever: i64 = -1;
/** state_declare flag: reads move the expiry too. */
export const declareReadAndWrite: i32 = 1;
/** state_declare flag: expired values are returned until cleaned up. */
export const declareReturnExpired: i32 = 2;
/** state_declare flag: the TTL counts in event time. */
export const declareEventTime: i32 = 4;
/** state_declare flag (ABI 1.2): ws_migrate converts the state's older values; set with StateOptions.migrate. */
export const declareMigrates: i32 = 8;

/** One pending state_declare call. */
class Declaration {
  constructor(
    public name: string,
    public nameBytes: Uint8Array,
    public version: i32,
    public ttlMs: i64,
    public flags: i32,
    public migrate: MigrateFn | null,
  ) {}
}

/** The declarations for ws_init, in declaration order. */
let pending = new Array<Declaration>();
/** The declarations the host accepted, for ws_migrate. */
let sent = new Array<Declaration>();

/**
 * Declares the version and TTL of the state called name (for a MapState,
 * the map's name: each entry expires on its own). Call it at the top level
 * of the module or from init; ws_init hands the declarations to the host
 * once init returned null. A later declaration of the same name replaces
 * the earlier one.
 *
 * Returns null, or why the declaration was not taken: a bad name, a
 * negative version or a TTL under 1 ms (which also make ws_init fail with
 * GUEST_INTERNAL, even when the result is ignored), or a call during
 * process (too late: the host takes declarations only before the first
 * record).
 */
export function declareState(name: string, options: StateOptions): Error | null {
  const phase = currentPhase();
  if (phase == Phase.Process || phase == Phase.Migrate) {
    const during = phase == Phase.Process ? "process" : "a migration";
    return new Error("wasmstream: declareState \"" + name + "\": called during " + during + "; declare at the top level or in init");
  }
  const nameBytes = bytesOf(name);
  let problem = checkStateName("declareState", name, nameBytes, maxStateNameLen);
  if (problem == null && options.version < 0) {
    problem = "declareState \"" + name + "\": negative version " + options.version.toString();
  }
  const ttl = options.ttl;
  if (problem == null && !options.noTtl && ttl != null && ttl.durationMs < 1) {
    problem = "declareState \"" + name + "\": a TTL of " + ttl.durationMs.toString() + " ms is under one millisecond";
  }
  if (problem != null) {
    noteSetupError(problem);
    return new Error("wasmstream: " + problem);
  }
  record(new Declaration(name, nameBytes, options.version == 0 ? 1 : options.version, ttlArg(options), flagsArg(options),
    options.migrate));
  return null;
}

/** record keeps d, replacing an earlier declaration of its name. */
function record(d: Declaration): void {
  for (let i = 0; i < pending.length; i++) {
    if (pending[i].name == d.name) {
      pending[i] = d;
      return;
    }
  }
  pending.push(d);
}

/** ttlArg is state_declare's ttl_ms for options. */
function ttlArg(options: StateOptions): i64 {
  if (options.noTtl) return ttlNever;
  const ttl = options.ttl;
  return ttl == null ? ttlUnset : ttl.durationMs;
}

/** flagsArg is state_declare's flags for options. */
function flagsArg(options: StateOptions): i32 {
  const migrates = options.migrate != null ? declareMigrates : 0;
  const ttl = options.ttl;
  if (options.noTtl || ttl == null) return migrates;
  let flags = migrates;
  if (ttl.update == TtlUpdate.OnReadAndWrite) flags |= declareReadAndWrite;
  if (ttl.visibility == TtlVisibility.ReturnExpiredIfNotCleaned) flags |= declareReturnExpired;
  if (ttl.eventTime) flags |= declareEventTime;
  return flags;
}

/** Forgets the pending declarations (init failed). */
export function discardDeclarations(): void {
  pending = new Array<Declaration>();
}

/**
 * Hands every pending declaration to the host (ws_init only). A refusal is
 * logged with the state's name: GUEST_INTERNAL.
 */
export function sendDeclarations(): i32 {
  const list = pending;
  pending = new Array<Declaration>();
  for (let i = 0; i < list.length; i++) {
    const d = list[i];
    const code = hostStateDeclare(d.nameBytes.dataStart, <usize>d.nameBytes.byteLength, d.version, d.ttlMs, d.flags);
    if (code != Code.OK) {
      log(Level.Error, "wasmstream: the host refused the declaration of state \"" + d.name + "\" (version " +
        d.version.toString() + ", ttl_ms " + d.ttlMs.toString() + ", flags " + d.flags.toString() + "): " +
        codeName(code) + ": the host takes names of 1..1024 bytes without NUL, versions of 1 or more and ttl_ms of -1 or more");
      return Code.GUEST_INTERNAL;
    }
  }
  sent = list;
  return Code.OK;
}

/** migrationOf returns the migration the host accepted for the state called name, or null. */
export function migrationOf(name: string): MigrateFn | null {
  for (let i = 0; i < sent.length; i++) {
    if (sent[i].name == name) return sent[i].migrate;
  }
  return null;
}
