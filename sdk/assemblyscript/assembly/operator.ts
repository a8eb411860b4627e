import { Record } from "./record";
import { noteSetupError } from "./state";

/**
 * Operator is the user code of a wasmstream module. Subclass it, override
 * process (and init when the operator has a config), and register one
 * instance from the top level of the module.
 *
 * AssemblyScript has no exceptions an operator could catch, so failures are
 * values: init and process return an Error, or null on success.
 */
export abstract class Operator {
  /**
   * Receives the operator's config bytes from the pipeline file (empty when
   * there are none); the SDK passes a copy, which the operator may keep.
   * Returning an Error rejects the config: the instance fails with
   * GUEST_CONFIG after the SDK logs the message. The default accepts any
   * config.
   */
  init(config: Uint8Array): Error | null {
    return null;
  }

  /**
   * Handles one record. State and emit calls inside it address the
   * record's key. Returning an Error sends the record to the dead-letter
   * subject: the SDK logs the message at error level and returns
   * GUEST_RECORD, and the host drops the state writes and emits of the
   * failed attempt and runs the rest of the batch again without the record
   * (so process must not rely on side effects outside host state). A trap
   * (unreachable(), a failed assert, an out-of-range index) also
   * dead-letters the record, and the host replaces the instance.
   */
  abstract process(record: Record): Error | null;
}

let registered: Operator | null = null;

/**
 * Makes op the operator of this module. Call it exactly once, from the top
 * level of the entry file. A second call is a setup error that ws_init
 * reports.
 */
export function register(op: Operator): void {
  if (registered != null) {
    noteSetupError("register called twice: a module has exactly one operator");
    return;
  }
  registered = op;
}

/** Returns the registered operator, or null. */
export function registeredOperator(): Operator | null {
  return registered;
}
