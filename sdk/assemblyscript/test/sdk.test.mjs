// Tests of the SDK against the fake host: every part of the API and how
// operator results map to ABI codes.
import { test } from "node:test";
import assert from "node:assert/strict";
import { buildOperator } from "./build.mjs";
import { Code, FakeHost, encodeBatch, encodeHeaders } from "./fakehost.mjs";

const kitchen = await buildOperator("kitchen");
const txt = (b) => new TextDecoder().decode(b);
const rec = (key, value, extra = {}) => ({ key, value, ...extra });

function run(records, opts = {}) {
  const host = new FakeHost(kitchen, opts);
  return { host, ...host.run(records, opts) };
}

test("exports and imports are the ABI's", () => {
  const exports = WebAssembly.Module.exports(kitchen).map((e) => e.name).sort();
  assert.deepEqual(exports, ["memory", "ws_abi_version", "ws_alloc", "ws_init", "ws_migrate", "ws_process"]);
  for (const imp of WebAssembly.Module.imports(kitchen)) {
    assert.ok(imp.module === "wasmstream" || (imp.module === "env" && imp.name === "abort"), `${imp.module}.${imp.name}`);
  }
  const inst = new FakeHost(kitchen).newInstance();
  assert.equal(inst.exports.ws_abi_version(), 1);
});

test("value state counts per key and emits with headers", () => {
  const { host, outputs, deadLetters } = run([rec("a", "count"), rec("a", "count"), rec("b", "count")]);
  assert.deepEqual(deadLetters, []);
  assert.deepEqual(outputs.map((o) => [txt(o.key), txt(o.value), o.headers]), [
    ["a", "count", [["count", "1"]]],
    ["a", "count", [["count", "2"]]],
    ["b", "count", [["count", "1"]]],
  ]);
  assert.deepEqual([...host.state("a", "count")], [2, 0, 0, 0, 0, 0, 0, 0]);
});

test("a failing record is dead-lettered and the rest of the batch still counts", () => {
  const { host, outputs, deadLetters } = run([rec("a", "count"), rec("a", "fail:x"), rec("a", "count")]);
  assert.deepEqual(deadLetters.map((d) => [d.record, d.kind, d.code]), [[1, "record", Code.GUEST_RECORD]]);
  assert.deepEqual(outputs.map((o) => o.record), [0, 2]);
  assert.equal(host.state("a", "count")[0], 2);
  const line = host.logs.find((l) => l.level === 4);
  assert.match(line.msg, /process failed, the record goes to dead letters: failing on purpose: x/);
  assert.equal(line.record, 1);
});

test("traps dead-letter the record and replace the instance", () => {
  for (const cmd of ["trap", "assert", "index"]) {
    const { host, outputs, deadLetters } = run([rec("a", "count"), rec("a", cmd), rec("a", "count")]);
    assert.deepEqual(deadLetters.map((d) => [d.record, d.kind]), [[1, "trap"]], cmd);
    assert.deepEqual(outputs.map((o) => o.record), [0, 2], cmd);
    assert.equal(host.state("a", "count")[0], 2, cmd);
  }
});

test("an abort is logged with its message before the trap", () => {
  const { host, deadLetters } = run([rec("a", "assert")]);
  assert.match(deadLetters[0].message, /abort: asserted on purpose at test\/operators\/kitchen.ts/);
  const line = host.logs.find((l) => l.level === 4);
  assert.match(line.msg, /^wasmstream: abort: asserted on purpose at test\/operators\/kitchen\.ts:\d+:\d+$/);
  assert.equal(line.record, 0);
});

test("host error codes come back as HostErrors that fail the record", () => {
  const cases = [
    ["unknown-output", /emit "nope": output not wired .*UNKNOWN_OUTPUT/],
    ["empty-output", /emit "": .*BAD_ARGUMENT/],
    ["big-put:2000", /state put "text": .*TOO_LARGE/],
    ["big-emit:2000", /emit "out": .*TOO_LARGE/],
    ["quota:5", /emit "out": .*QUOTA_EXCEEDED/],
  ];
  for (const [cmd, want] of cases) {
    const { host, deadLetters, outputs } = run([rec("a", cmd)], { maxValueLen: 1000, maxEmits: 4 });
    assert.deepEqual(deadLetters.map((d) => d.kind), ["record"], cmd);
    assert.deepEqual(outputs, [], cmd);
    assert.match(host.logs.find((l) => l.level === 4).msg, want, cmd);
  }
  const { outputs } = run([rec("a", "quota:4")], { maxEmits: 4 });
  assert.equal(outputs.length, 4);
});

test("HostError carries the code, operation and subject", () => {
  const { outputs } = run([rec("a", "code-of")]);
  assert.equal(txt(outputs[0].value), `${Code.UNKNOWN_OUTPUT} UNKNOWN_OUTPUT emit nope`);
});

test("headers: list, lookup, and emit with headers", () => {
  const headers = [["x", "1"], ["y", "é"], ["x", "2"], ["", ""]];
  const { outputs } = run([rec("k", "headers", { headers }), rec("k", "headers")]);
  assert.equal(txt(outputs[0].value), "1");
  assert.deepEqual(outputs[0].headers, [["x!", "1"], ["y!", "é"], ["x!", "2"], ["!", ""]]);
  assert.equal(txt(outputs[1].value), "<none>");
  assert.deepEqual(outputs[1].headers, []);
});

test("event time, processing time and input index come from the host", () => {
  const { outputs } = run([rec("k", "time", { eventTime: -5n }), rec("k", "input", { input: 3 })], { processingTime: 42n });
  assert.equal(txt(outputs[0].value), "-5,-5,42");
  assert.equal(txt(outputs[1].value), "3");
});

test("log levels reach the host, out-of-range levels are clamped", () => {
  const { host } = run([rec("k", "logs")]);
  const lines = host.logs.filter((l) => l.record === 0).map((l) => [l.level, l.msg]);
  assert.deepEqual(lines, [[0, "t"], [1, "d"], [2, "i"], [3, "w"], [4, "e"], [4, "clamped"]]);
});

test("codecs round-trip and use the Go SDK's encodings", () => {
  const { host, outputs, deadLetters } = run([rec("k", "codecs")]);
  assert.deepEqual(deadLetters, []);
  assert.equal(txt(outputs[0].value), "-2|-9223372036854775808|18446744073709551615|1.5|true|true/false|héllo 😀|true|0.255.7");
  const hex = (name) => Buffer.from(host.state("k", name)).toString("hex");
  assert.equal(hex("count"), "feffffffffffffff");
  assert.equal(hex("count-explicit"), "0000000000000080");
  assert.equal(hex("u64"), "ffffffffffffffff");
  assert.equal(hex("f64"), "000000000000f83f");
  assert.equal(hex("flag"), "01");
  assert.equal(hex("bool-explicit"), "00");
  assert.equal(txt(host.state("k", "text")), "héllo 😀");
  assert.equal(hex("str-explicit"), "");
  assert.equal(hex("raw"), "00ff07");
});

test("a value that does not decode is a DecodeError", () => {
  const { outputs } = run([rec("k", "bad-codec")]);
  assert.match(txt(outputs[0].value), /state get "text": state value does not decode with this codec: want exactly 8 bytes, got 3/);
});

test("map state entries are named name NUL key and can be deleted", () => {
  const { host, outputs, deadLetters } = run([
    rec("k", "map-put:a=1"), rec("k", "map-put:é=2"), rec("k", "map-get:a"), rec("k", "map-get:zz"),
    rec("k", "map-del:a"), rec("k", "map-get:a"), rec("k", "map-long:1022"), rec("k", "map-long:1023"),
  ]);
  assert.deepEqual(outputs.map((o) => txt(o.value)), ["1", "<absent>", "<absent>"]);
  assert.equal(txt(host.state("k", "m\0é")), "2");
  assert.equal(host.state("k", "m\0a"), undefined);
  assert.equal(txt(host.state("k", "m\0" + "k".repeat(1022))), "v");
  assert.deepEqual(deadLetters.map((d) => d.record), [7]);
  assert.match(host.logs.find((l) => l.level === 4).msg, /map put "m\[k+\]": map key of 1023 bytes is over maxKeyLen 1022: .*BAD_ARGUMENT/);
});

test("large state values are read with the retry protocol", () => {
  const big = "y".repeat(300000);
  const { host, outputs } = run([rec("k", "text-put:" + big), rec("k", "text-get"), rec("k", "text-get")]);
  assert.equal(txt(host.state("k", "text")).length, 300000);
  assert.deepEqual(outputs.map((o) => txt(o.value)), ["300000:yyyyyyyyyy", "300000:yyyyyyyyyy"]);
  assert.equal(host.calls.state_get, 4); // too small once, then fits; then the buffer was trimmed again
});

test("delete removes a value; empty keys and values can be emitted", () => {
  const { host, outputs } = run([rec("k", "count"), rec("k", "delete"), rec("", "emit-empty")]);
  assert.equal(host.state("k", "count"), undefined);
  assert.equal(outputs[1].key.length + outputs[1].value.length, 0);
});

test("config bytes reach init; a rejected config is GUEST_CONFIG", () => {
  const { outputs } = run([rec("k", "config")], { config: '{"a":1}' });
  assert.equal(txt(outputs[0].value), '{"a":1}');
  assert.throws(() => new FakeHost(kitchen, { config: "reject" }).newInstance(), (e) => e.code === Code.GUEST_CONFIG);
});

test("ws_init fails with the reason when the module has no operator or bad state", async () => {
  const none = new FakeHost(await buildOperator("noregister"));
  assert.throws(() => none.newInstance(), (e) => e.code === Code.GUEST_INTERNAL);
  assert.match(none.logs[0].msg, /no operator registered/);
  const bad = new FakeHost(await buildOperator("badnames"));
  assert.throws(() => bad.newInstance(), (e) => e.code === Code.GUEST_INTERNAL);
  const msgs = bad.logs.map((l) => l.msg).join("\n");
  assert.match(msgs, /ValueState: empty state name/);
  assert.match(msgs, /ValueState "a\0b": state name contains a NUL byte/);
  assert.match(msgs, /MapState "n+": state name of 1024 bytes is longer than 1023 bytes/);
  assert.match(msgs, /ValueState "point": no built-in codec for Point/);
  assert.match(msgs, /register called twice/);
});

test("ws_process refuses malformed batches with GUEST_INTERNAL", () => {
  const host = new FakeHost(kitchen);
  const good = encodeBatch([rec("k", "count")]);
  const bad = [
    good.subarray(0, 3),
    good.subarray(0, good.length - 1),
    Uint8Array.of(...good, 0),
    (() => { const b = Uint8Array.from(good); b[16] = 0xff; return b; })(), // key length too large
    encodeBatch([{ key: "k", value: "count", headerBytes: Uint8Array.of(5, 0, 0, 0, 1) }]),
  ];
  for (const b of bad) {
    const inst = host.newInstance();
    const res = inst.process([rec("k", "count")], b);
    assert.equal(res.error?.code, Code.GUEST_INTERNAL, Buffer.from(b).toString("hex"));
  }
  assert.ok(host.logs.some((l) => /malformed record 0/.test(l.msg)));
});

test("ws_process before a successful ws_init is GUEST_INTERNAL", async () => {
  const { Instance } = await import("./fakehost.mjs");
  const host = new FakeHost(kitchen);
  const inst = new Instance(kitchen, host);
  const res = inst.process([rec("k", "count")]);
  assert.equal(res.error?.code, Code.GUEST_INTERNAL);
});

test("the ws_alloc buffer is reused, and never touched by the collector", () => {
  const host = new FakeHost(kitchen);
  const inst = host.newInstance();
  const p1 = inst.alloc(100);
  assert.equal(inst.alloc(200), p1, "a buffer that fits is reused");
  const size = 4 << 20;
  const p = inst.alloc(size);
  const mem = () => inst.mem().subarray(p, p + size);
  mem().fill(0xab);
  // Process batches that churn the collector, writing each batch at p as the host does.
  const garbage = Array.from({ length: 64 }, () => rec("k", "garbage:70000"));
  for (let i = 0; i < 20; i++) {
    const res = inst.process(garbage);
    assert.ok(!res.error, JSON.stringify(res.error));
  }
  const batchLen = encodeBatch(garbage).length;
  assert.ok(mem().subarray(batchLen).every((b) => b === 0xab), "guest wrote into the host's buffer");
});

test("headers with invalid UTF-8 and empty values survive", () => {
  const hdr = encodeHeaders([[Uint8Array.of(0x78), Uint8Array.of(0xff, 0x41)]]);
  const { outputs } = run([{ key: "k", value: "headers", headerBytes: hdr }]);
  assert.equal(txt(outputs[0].value), "\ufffdA");
});

test("state errors from the host fail the record with the code named", () => {
  const cases = [
    [{ state_get: -42 }, "count", /state get "count": unknown error code from the host CODE\(-42\)/],
    [{ state_get: Code.BAD_ARGUMENT }, "map-get:a", /map get "m\[a\]": bad argument.*BAD_ARGUMENT/],
    [{ state_put: Code.TOO_LARGE }, "map-put:a=1", /map put "m\[a\]": .*TOO_LARGE/],
    [{ state_delete: Code.BAD_ARGUMENT }, "delete", /state delete "count": .*BAD_ARGUMENT/],
    [{ state_delete: Code.BAD_ARGUMENT }, "map-del:a", /map delete "m\[a\]": .*BAD_ARGUMENT/],
  ];
  for (const [inject, cmd, want] of cases) {
    const { host, deadLetters } = run([rec("a", cmd)], { inject });
    assert.deepEqual(deadLetters.map((d) => d.kind), ["record"], cmd);
    assert.match(host.logs.find((l) => l.level === 4).msg, want, cmd);
  }
});
