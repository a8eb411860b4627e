// Tests of @wasmstream/sdk/json: the expected outputs are what Go's
// encoding/json gives for the same input (decode, then marshal each field).
import { test } from "node:test";
import assert from "node:assert/strict";
import { buildOperator } from "./build.mjs";
import { FakeHost } from "./fakehost.mjs";

const echo = await buildOperator("jsonecho");
const latin1 = (s) => Uint8Array.from(Buffer.from(s, "latin1"));

const cases = [
  ['{"a":"x","b":1}', '{"a":"x","b":1}'],
  [' \t{ "a" : "x" ,\n"b" : -0 }\r\n', '{"a":"x","b":0}'],
  ['{"s":"<&>\\u2028\\u2029\\"\\\\\\/\\b\\f\\n\\r\\t\\u0001\\u001f\\u007f"}',
    '{"s":"\\u003c\\u0026\\u003e\\u2028\\u2029\\"\\\\/\\b\\f\\n\\r\\t\\u0001\\u001f\x7f"}'],
  ['{"s":"\\ud83d\\ude00 \\ud800 \\udc00 \\ud800\\u0041 é😀"}', '{"s":"😀 \ufffd \ufffd \ufffdA é😀"}'],
  [latin1('{"s":"\xff\xfeA\xc3"}'), '{"s":"\ufffd\ufffdA\ufffd"}'],
  [latin1('{"s":"\xed\xa0\x80"}'), '{"s":"\ufffd\ufffd\ufffd"}'],
  ['{"n":9223372036854775807,"m":-9223372036854775808,"o":9223372036854775808,"p":1.5,"q":1e3,"r":-1E-2}',
    '{"n":9223372036854775807,"m":-9223372036854775808,"o":"number","p":"number","q":"number","r":"number"}'],
  ['{"t":true,"f":false,"z":null}', '{"t":true,"f":false,"z":null}'],
  ["{}", "{}"],
  ['{"a":1,"a":"two"}', '{"a":1,"a":"two"}'],
];

const invalid = ['{"a":01}', '{"a":[1]}', '{"a":{"b":1}}', '{"a":1,}', '{"a":1} x', '{"a":"\\x"}', '{"a":"\x01"}',
  "[1]", "", '{"a":-}', '{"a":1.}', '{"a":"\\u12"}', '{"a" 1}', "{a:1}", '{"a":tru}', '{"a":"open'];

test("FlatObject and JsonWriter give Go's bytes", () => {
  const records = cases.map(([value]) => ({ key: "k", value }));
  const { outputs, deadLetters } = new FakeHost(echo).run(records);
  assert.deepEqual(deadLetters, []);
  assert.deepEqual(outputs.map((o) => new TextDecoder().decode(o.value)), cases.map(([, want]) => want));
  assert.ok(outputs.every((o) => new TextDecoder().decode(o.key) === "k"));
});

test("FlatObject refuses what is not a flat JSON object", () => {
  const records = invalid.map((value) => ({ key: "k", value }));
  const { outputs } = new FakeHost(echo).run(records);
  assert.equal(outputs.length, invalid.length);
  for (const [i, o] of outputs.entries()) {
    assert.equal(new TextDecoder().decode(o.key), "error", invalid[i]);
    assert.match(new TextDecoder().decode(o.value), / at byte \d+$/, invalid[i]);
  }
});
