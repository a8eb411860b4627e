// The module's exports (abi/ABI.md section 4). An operator's entry file
// re-exports them with one line:
//
//     export * from "@wasmstream/sdk/exports";

import { allocHostBuffer, inHostBuffer } from "./alloc";
import { Phase, setPhase } from "./call";
import { Code } from "./codes";
import { initOperator, processBatch } from "./driver";
import { migrateValue } from "./migrate";
import { Level, log } from "./log";
// The abort handler must be compiled in for `--use abort=` to find it.
import "./abort";

/** ABI version this SDK implements. */
const abiVersion: i32 = 1;

/** ws_abi_version: () -> i32. The ABI version the module was built for. */
export function ws_abi_version(): i32 {
  return abiVersion;
}

/** ws_alloc: (size) -> ptr. A buffer of size bytes, the host's until the next ws_alloc. */
export function ws_alloc(size: u32): usize {
  return allocHostBuffer(<usize>size);
}

/** ws_init: (cfg_ptr, cfg_len) -> code. Called once per instance with the config bytes. */
export function ws_init(cfgPtr: usize, cfgLen: u32): i32 {
  setPhase(Phase.Init);
  let code: i32;
  if (!inHostBuffer(cfgPtr, <usize>cfgLen)) {
    log(Level.Error, "wasmstream: ws_init: config bytes lie outside the buffer from ws_alloc");
    code = Code.GUEST_INTERNAL;
  } else {
    code = initOperator(cfgPtr, <usize>cfgLen);
  }
  setPhase(Phase.Idle);
  return code;
}

/** ws_process: (batch_ptr, batch_len) -> code. Processes one batch. */
export function ws_process(batchPtr: usize, batchLen: u32): i32 {
  setPhase(Phase.Process);
  let code: i32;
  if (!inHostBuffer(batchPtr, <usize>batchLen)) {
    log(Level.Error, "wasmstream: ws_process: batch lies outside the buffer from ws_alloc");
    code = Code.GUEST_INTERNAL;
  } else {
    code = processBatch(batchPtr, <usize>batchLen);
  }
  setPhase(Phase.Idle);
  return code;
}

/**
 * ws_migrate (ABI 1.2): (name_ptr, name_len, from_version, val_ptr, val_len) -> i64.
 * Converts one stored value of a state whose version changed: the new
 * value as len << 32 | ptr, NOT_FOUND to delete it, or GUEST_INTERNAL.
 */
export function ws_migrate(namePtr: usize, nameLen: u32, fromVersion: i32, valPtr: usize, valLen: u32): i64 {
  setPhase(Phase.Migrate);
  let result: i64;
  if (!inHostBuffer(namePtr, <usize>nameLen) || !inHostBuffer(valPtr, <usize>valLen)) {
    log(Level.Error, "wasmstream: ws_migrate: the name or the value lies outside the buffer from ws_alloc");
    result = Code.GUEST_INTERNAL;
  } else {
    result = migrateValue(namePtr, <usize>nameLen, fromVersion, valPtr, <usize>valLen);
  }
  setPhase(Phase.Idle);
  return result;
}
