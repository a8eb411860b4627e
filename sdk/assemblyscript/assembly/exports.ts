// The module's exports (abi/ABI.md section 4). An operator's entry file
// re-exports them with one line:
//
//     export * from "@wasmstream/sdk/exports";

import { allocHostBuffer, inHostBuffer } from "./alloc";
import { Phase, setPhase } from "./call";
import { Code } from "./codes";
import { initOperator, processBatch } from "./driver";
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
