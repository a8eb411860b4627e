// @wasmstream/sdk/testing: unit-test an AssemblyScript operator under node,
// without the engine. FakeHost implements the host side of ABI v1
// (abi/ABI.md) with the checks the real host makes (name and value limits,
// wired outputs, the emit quota, calls outside a record, state
// declarations), keeps keyed state in memory with the engine's batch
// semantics (a batch's state writes and emits count only when it succeeds;
// a failed record is dead-lettered and the batch runs again without it; a
// trap also replaces the instance) and applies declared TTLs against
// processingTime or the records' event times (without the cleanup sweep).
//
//   import { test } from "node:test";
//   import assert from "node:assert/strict";
//   import { FakeHost, loadOperator, stateI64, text } from "@wasmstream/sdk/testing";
//
//   const module = loadOperator(new URL("../operator.wasm", import.meta.url));
//   test("a payment adds to its account's total", () => {
//     const host = new FakeHost(module, { config: `{"max_cents":5000}` });
//     const { outputs, deadLetters } = host.run([{ key: "acct-1", value: `{"cents":1200}` }]);
//     assert.equal(text(outputs[0].value), `{"total":1200}`);
//     assert.equal(stateI64(host, "acct-1", "total"), 1200n);
//   });
//
// What differs from the real host: no checkpoints, no deadline, no cleanup
// sweep of expired state, and the clock is processingTime.
import fs from "node:fs";

export { Code, FakeHost, GuestAbort, Misuse, decodeHeaders, encodeBatch, encodeHeaders } from "./test/fakehost.mjs";

const decoder = new TextDecoder();

/** loadOperator compiles a built module (a path or a file: URL) for FakeHost. */
export function loadOperator(file) {
  return new WebAssembly.Module(fs.readFileSync(file));
}

/** text decodes UTF-8 bytes (an output's key or value, a state value). */
export function text(bytes) {
  return decoder.decode(bytes);
}

/** stateI64 reads a committed i64 state (ValueState<i64>: 8 little-endian bytes) as a BigInt, or undefined. */
export function stateI64(host, key, name) {
  const raw = host.state(key, name);
  if (raw === undefined) return undefined;
  if (raw.length !== 8) throw new Error(`state ${JSON.stringify(name)} of key ${JSON.stringify(key)} has ${raw.length} bytes, not 8`);
  return new DataView(raw.buffer, raw.byteOffset, 8).getBigInt64(0, true);
}

/** mapState reads the committed entry mapKey of the map state name (MapState) of key, or undefined. */
export function mapState(host, key, name, mapKey) {
  return host.state(key, `${name}\0${mapKey}`);
}

/** errorLogs returns the messages of the ERROR lines the guest logged (a dead letter's reason among them). */
export function errorLogs(host) {
  return host.logs.filter((l) => l.level === 4).map((l) => l.msg);
}
