// Memory must stay bounded over many records: the incremental collector has
// to reclaim every per-record allocation (records, state reads, JSON).
import { test } from "node:test";
import assert from "node:assert/strict";
import { buildOperator } from "./build.mjs";
import { FakeHost } from "./fakehost.mjs";

// RECORDS=1000000 npm test runs the long version.
const total = Number(process.env.RECORDS ?? 200000);

test(`linear memory stays flat over ${total} records`, async () => {
  const host = new FakeHost(await buildOperator("risklike"));
  const inst = host.newInstance();
  const batch = (start) => Array.from({ length: 512 }, (_, j) => {
    const i = start + j;
    const account = `acct-${i % 1000}`;
    return { key: account, value: `{"account":"${account}","event":"evt-${i}","cents":${i % 1000}}` };
  });
  let afterWarmup = 0;
  let peak = 0;
  for (let start = 0; start < total; start += 512) {
    const res = inst.process(batch(start));
    assert.ok(!res.error, JSON.stringify(res.error));
    if (start === 512 * 20) afterWarmup = inst.pages();
    peak = Math.max(peak, inst.pages());
    // The fake host keeps state in memory; drop it so that the test
    // measures the guest, not the host.
    host.committed.clear();
  }
  // Memory may grow while the collector finds its pace, but not with the number of records.
  assert.ok(peak <= Math.max(afterWarmup * 2, 16), `memory grew from ${afterWarmup} to ${peak} pages`);
});

test("memory is bounded with large garbage per record", async () => {
  const host = new FakeHost(await buildOperator("kitchen"));
  const inst = host.newInstance();
  const records = Array.from({ length: 256 }, () => ({ key: "k", value: "garbage:65536" }));
  for (let i = 0; i < 100; i++) {
    const res = inst.process(records);
    assert.ok(!res.error, JSON.stringify(res.error));
  }
  // 100 × 256 × 4 × 64 KiB = 6.4 GiB allocated in all.
  assert.ok(inst.pages() <= 512, `memory at ${inst.pages()} pages`);
});
