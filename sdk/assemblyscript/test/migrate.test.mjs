// Migrations (ABI 1.2, ws_migrate) against the fake host: the declaration's
// flag, converted, deleted and failed values, and which state a failure names.
import { test } from "node:test";
import assert from "node:assert/strict";
import { buildOperator } from "./build.mjs";
import { Code, FakeHost } from "./fakehost.mjs";

const migrates = await buildOperator("migrates");
const txt = (b) => new TextDecoder().decode(b);
const errorLines = (host) => host.logs.filter((l) => l.level === 4).map((l) => l.msg);

test("a migration sets the migrates flag", () => {
  const host = new FakeHost(migrates);
  host.newInstance();
  assert.deepEqual(host.declarations, [
    { name: "total", version: 2, ttlMs: 0, flags: 8 },
    { name: "limits", version: 3, ttlMs: 0, flags: 8 },
    { name: "plain", version: 2, ttlMs: 0, flags: 0 },
  ]);
});

test("values are converted or deleted, one call after the other", () => {
  const host = new FakeHost(migrates);
  const inst = host.newInstance();
  assert.equal(txt(inst.migrate("total", 1, "42").value), '{"total":42}');
  assert.deepEqual(inst.migrate("total", 1, "0"), { deleted: true });
  assert.equal(txt(inst.migrate("total", 1, "-7").value), '{"total":-7}');
  assert.equal(txt(inst.migrate("limits\0acct-1", 2, "9").value), "limits\0acct-1");
  assert.deepEqual(errorLines(host), []);
});

test("a failed migration is GUEST_INTERNAL with a line naming the state", () => {
  for (const [name, from, old, want] of [
    ["total", 1, "ten", /^wasmstream: migration of state "total" from version 1 failed: the stored total ten is not a decimal integer$/],
    ["total", 4, "5", /state "total" from version 4 failed: no migration from version 4/],
    ["plain", 1, "x", /no migration declared for state "plain"/],
    ["other\0k", 1, "x", /no migration declared for state "other" \(entry "k"\)/],
  ]) {
    const host = new FakeHost(migrates);
    const inst = host.newInstance();
    assert.deepEqual(inst.migrate(name, from, old), { error: { code: Code.GUEST_INTERNAL } }, name);
    assert.match(errorLines(host).join("\n"), want, name);
  }
});
