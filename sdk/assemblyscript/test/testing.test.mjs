// Tests of the packaged harness, imported the way an operator project does
// (the package's own name resolves to this folder through "exports").
import { test } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import os from "node:os";
import { buildOperator } from "./build.mjs";
import * as testing from "@wasmstream/sdk/testing";
import { Code, FakeHost, errorLogs, loadOperator, mapState, stateI64, text } from "@wasmstream/sdk/testing";
import * as fakehost from "./fakehost.mjs";

const risk = await buildOperator("risklike");
const payment = (account, event, cents) => ({ key: account, value: JSON.stringify({ account, event, cents }) });

test("the entry point is the fake host of the SDK's own tests", () => {
  assert.equal(testing.FakeHost, fakehost.FakeHost);
  assert.equal(testing.Code, fakehost.Code);
  assert.equal(Code.GUEST_RECORD, -101);
});

test("outputs, state, map state and dead letters of a run", () => {
  const host = new FakeHost(risk);
  const { outputs, deadLetters } = host.run([
    payment("acct-1", "e1", 1200),
    { key: "acct-1", value: "{not json" },
    payment("acct-1", "e2", 900),
    payment("acct-1", "e2", 900),
  ]);
  assert.deepEqual(outputs.map((o) => [o.output, text(o.key), JSON.parse(text(o.value)).total, o.record]), [
    ["out", "acct-1", 1200, 0],
    ["out", "acct-1", 2100, 2],
  ]);
  assert.deepEqual(deadLetters.map((d) => [d.record, d.kind]), [[1, "record"]]);
  assert.equal(errorLogs(host).length, 1);
  assert.equal(stateI64(host, "acct-1", "total"), 2100n);
  assert.equal(stateI64(host, "acct-2", "total"), undefined);
  assert.notEqual(mapState(host, "acct-1", "seen", "e2"), undefined);
  assert.equal(mapState(host, "acct-1", "seen", "e3"), undefined);
});

test("loadOperator reads a built module from a path", () => {
  const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), "wasmstream-testing-")), "op.wasm");
  fs.writeFileSync(file, new Uint8Array(fs.readFileSync(new URL("../build/test/risklike.wasm", import.meta.url))));
  const host = new FakeHost(loadOperator(file));
  host.run([payment("a", "e1", 5)]);
  assert.equal(stateI64(host, "a", "total"), 5n);
  fs.rmSync(path.dirname(file), { recursive: true });
});

test("stateI64 refuses a value that is not 8 bytes", () => {
  const host = new FakeHost(risk);
  host.run([payment("a", "e1", 5)]);
  assert.throws(() => stateI64(host, "a", "seen\0e1"), /not 8/);
});
