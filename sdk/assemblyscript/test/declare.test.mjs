// State declarations (ABI 1.1) and the dedup helper against the fake host:
// what reaches state_declare and when, how bad declarations and refusals
// fail ws_init, and the dedup set's layout, rollback and TTL.
import { test } from "node:test";
import assert from "node:assert/strict";
import { buildOperator } from "./build.mjs";
import { Code, FakeHost } from "./fakehost.mjs";

const declares = await buildOperator("declares");
const txt = (b) => new TextDecoder().decode(b);
const rec = (key, value, extra = {}) => ({ key, value, ...extra });
const ms = 1_000_000n;

const declared = [
  { name: "total", version: 2, ttlMs: -1, flags: 0 },
  { name: "notes", version: 3, ttlMs: 90000, flags: 7 },
  { name: "seen", version: 1, ttlMs: 1500, flags: 0 },
  { name: "plain", version: 1, ttlMs: 0, flags: 0 },
];

test("top-level and init declarations reach the host after init, in order, replaced in place", () => {
  const host = new FakeHost(declares);
  host.newInstance();
  assert.deepEqual(host.declarations, declared);
  assert.deepEqual(host.logs.filter((l) => l.level === 4), []);
});

test("a rejected config sends no declarations", () => {
  const host = new FakeHost(declares, { config: "reject" });
  assert.throws(() => host.newInstance(), (e) => e.code === Code.GUEST_CONFIG);
  assert.deepEqual(host.declarations, []);
});

test("bad declarations fail ws_init with GUEST_INTERNAL, even when the result is ignored", () => {
  for (const [config, want] of [
    ["bad-version", /declareState "v": negative version -1/],
    ["bad-ttl", /declareState "x": a TTL of 0 ms is under one millisecond/],
  ]) {
    const host = new FakeHost(declares, { config });
    assert.throws(() => host.newInstance(), (e) => e.code === Code.GUEST_INTERNAL, config);
    assert.match(host.logs.filter((l) => l.level === 4).map((l) => l.msg).join("\n"), want, config);
    assert.deepEqual(host.declarations, [], config);
  }
});

test("a declaration the host refuses fails ws_init and names the state", () => {
  const host = new FakeHost(declares, { inject: { state_declare: Code.BAD_ARGUMENT } });
  assert.throws(() => host.newInstance(), (e) => e.code === Code.GUEST_INTERNAL);
  const errors = host.logs.filter((l) => l.level === 4);
  assert.equal(errors.length, 1);
  assert.match(errors[0].msg, /^wasmstream: the host refused the declaration of state "total" \(version 2, ttl_ms -1, flags 0\): BAD_ARGUMENT/);
});

test("declaring during process is refused without reaching the host", () => {
  const host = new FakeHost(declares);
  const { outputs, deadLetters } = host.run([rec("a", "late"), rec("a", "late-handle")]);
  assert.deepEqual(deadLetters, []);
  assert.match(txt(outputs[0].value), /declareState "late": called during process/);
  assert.match(host.logs.find((l) => l.level === 4).msg, /declareState "notes": called during process/);
  assert.deepEqual(host.declarations, declared);
});

test("the dedup set passes an id once per key, as map entries name NUL id = 0x01", () => {
  const host = new FakeHost(declares);
  const { outputs } = host.run([
    rec("a", "e1"), rec("a", "e1"), rec("b", "e1"), rec("a", "s:e1"), rec("a", "s:é"), rec("a", "s:é"),
    rec("a", ""), rec("a", ""), { key: "a", value: Uint8Array.of(0xff) }, { key: "a", value: Uint8Array.of(0xff) },
  ]);
  // s:e1 checks "e1" as a string: the entry isDuplicateBytes wrote for record 0.
  assert.deepEqual(outputs.map((o) => [txt(o.key), o.record]), [["a", 0], ["b", 2], ["a", 4], ["a", 6], ["a", 8]]);
  assert.deepEqual([...host.state("a", "seen\0e1")], [1]);
  assert.deepEqual([...host.state("a", "seen\0é")], [1], "isDuplicate stores UTF-8");
  assert.deepEqual([...host.state("a", "seen\0")], [1]);
  assert.deepEqual([...host.committed.get("a").get("seen\0\xff")], [1], "ids are bytes");
});

test("a failed record does not remember its id", () => {
  const host = new FakeHost(declares);
  const { deadLetters } = host.run([rec("a", "fail-1"), rec("a", "e1")]);
  assert.deepEqual(deadLetters.map((d) => [d.record, d.kind]), [[0, "record"]]);
  assert.equal(host.state("a", "seen\0fail-1"), undefined);
  assert.deepEqual([...host.state("a", "seen\0e1")], [1]);
});

test("an id passes again once its TTL is over", () => {
  const host = new FakeHost(declares, { processingTime: 0n });
  const inst = host.newInstance();
  const passes = (at) => {
    host.processingTime = at;
    return host.run([rec("a", "e1")], { instance: inst }).outputs.length === 1;
  };
  assert.deepEqual([passes(0n), passes(1499n * ms), passes(1500n * ms), passes(2999n * ms), passes(3000n * ms)],
    [true, false, true, false, true]);
});

test("ids over the entry name limit fail the record with BAD_ARGUMENT", () => {
  const host = new FakeHost(declares);
  const { outputs, deadLetters } = host.run([rec("a", "x".repeat(1019)), rec("a", "y".repeat(1020))]);
  assert.equal(outputs.length, 1, "4 + 1 + 1019 = 1024 bytes fit");
  assert.deepEqual(deadLetters.map((d) => d.record), [1]);
  assert.match(host.logs.find((l) => l.level === 4).msg, /dedup "seen\[y+\]": id of 1020 bytes is over maxIdLen 1019: .*BAD_ARGUMENT/);
});
