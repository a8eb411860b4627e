import { hostRecordNext } from "./host";
import { BatchReader } from "./batch";
import { Code } from "./codes";
import { discardDeclarations, sendDeclarations } from "./declare";
import { Level, log } from "./log";
import { registeredOperator } from "./operator";
import { takeSetupErrors } from "./state";

// The bodies of ws_init and ws_process: the record loop and the mapping of
// operator results to ABI codes.

let ready = false;

/** Reports whether ws_init succeeded, which ws_process requires. */
export function isReady(): bool {
  return ready;
}

/**
 * initOperator reports setup problems, runs the operator's init on a copy
 * of the config (the host reuses the buffer it lives in), then hands the
 * state declarations to the host.
 */
export function initOperator(cfgPtr: usize, cfgLen: usize): i32 {
  const code = runInit(cfgPtr, cfgLen);
  if (code != Code.OK) {
    discardDeclarations();
    return code;
  }
  const sent = sendDeclarations();
  ready = sent == Code.OK;
  return sent;
}

/** runInit is initOperator up to the declarations. */
function runInit(cfgPtr: usize, cfgLen: usize): i32 {
  if (reportSetupErrors()) return Code.GUEST_INTERNAL;
  const op = registeredOperator();
  if (op == null) {
    return internalError("no operator registered: call register(new YourOperator()) at the top level of the entry file");
  }
  const config = new Uint8Array(<i32>cfgLen);
  memory.copy(config.dataStart, cfgPtr, cfgLen);
  const err = op.init(config);
  if (reportSetupErrors()) return Code.GUEST_INTERNAL;
  if (err != null) {
    log(Level.Error, "wasmstream: operator init rejected its config: " + messageOf(err));
    return Code.GUEST_CONFIG;
  }
  return Code.OK;
}

/**
 * processBatch runs the operator on each record of the batch, after
 * record_next made that record current. It stops at the first record the
 * operator fails, so that the host can isolate it.
 */
export function processBatch(ptr: usize, len: usize): i32 {
  const op = registeredOperator();
  if (!ready || op == null) return internalError("ws_process called before a successful ws_init");
  const batch = new BatchReader(ptr, len);
  let i = 0;
  for (let rec = batch.next(); rec != null; rec = batch.next(), i++) {
    if (hostRecordNext() != 1) {
      return internalError("ws_process: record_next says the host has no record " + i.toString() + " but the batch has it");
    }
    const err = op.process(rec);
    if (err != null) {
      log(Level.Error, "wasmstream: process failed, the record goes to dead letters: " + messageOf(err));
      return Code.GUEST_RECORD;
    }
  }
  const why = batch.error;
  if (why != null) return internalError("ws_process: malformed record " + i.toString() + " in the batch: " + why);
  return Code.OK;
}

/** reportSetupErrors logs the setup problems noted so far and reports whether there were any. */
function reportSetupErrors(): bool {
  const problems = takeSetupErrors();
  for (let i = 0; i < problems.length; i++) log(Level.Error, problems[i]);
  return problems.length > 0;
}

/** internalError logs a failure of the SDK or of the host protocol. */
function internalError(msg: string): i32 {
  log(Level.Error, "wasmstream: " + msg);
  return Code.GUEST_INTERNAL;
}

/** messageOf returns err's message, or its name when the message is empty. */
function messageOf(err: Error): string {
  return err.message.length > 0 ? err.message : err.name + " with no message";
}
