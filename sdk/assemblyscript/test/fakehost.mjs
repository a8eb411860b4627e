// A fake wasmstream host for testing the SDK under node: it implements the
// host side of ABI v1 (abi/ABI.md) with the checks the real host makes,
// keeps keyed state in memory with batch commit and rollback (applying the
// TTLs the module declares, against processingTime or the records' event
// times, without the real host's cleanup sweep), and runs
// records the way the engine does (a failed record goes to dead letters and
// the rest of the batch runs again; a trap also replaces the instance).
// End-to-end runs against the real host are in the SDK README.

/** The ABI code registry (abi/codes.go). */
export const Code = {
  OK: 0, NOT_FOUND: -1, BAD_POINTER: -2, BAD_ARGUMENT: -3, NO_RECORD: -4, TOO_LARGE: -5,
  UNKNOWN_OUTPUT: -6, QUOTA_EXCEEDED: -7, REENTRANT: -8,
  GUEST_CONFIG: -100, GUEST_RECORD: -101, GUEST_INTERNAL: -102,
};

/** A fatal ABI misuse: the host stops the guest call. */
export class Misuse extends Error {
  constructor(code, fn, msg) {
    super(`${fn}: ${code}: ${msg}`);
    this.code = code;
    this.fn = fn;
  }
}

/** An env.abort from the guest, with its decoded message. */
export class GuestAbort extends Error {}

const enc = new TextEncoder();

/** Encodes headers ([[name, value], ...]) as an ABI header list. */
export function encodeHeaders(headers = []) {
  const parts = [];
  for (const [n, v] of headers) {
    for (const s of [n, v]) {
      const b = typeof s === "string" ? enc.encode(s) : s;
      const len = new Uint8Array(4);
      new DataView(len.buffer).setUint32(0, b.length, true);
      parts.push(len, b);
    }
  }
  return concat(parts);
}

/** Decodes an ABI header list into [[name, value], ...] (strings, latin1-safe via TextDecoder). */
export function decodeHeaders(bytes) {
  const out = [];
  const dv = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const dec = new TextDecoder();
  let p = 0;
  while (p < bytes.length) {
    const n = dv.getUint32(p, true);
    const name = dec.decode(bytes.subarray(p + 4, p + 4 + n));
    p += 4 + n;
    const v = dv.getUint32(p, true);
    out.push([name, dec.decode(bytes.subarray(p + 4, p + 4 + v))]);
    p += 4 + v;
  }
  return out;
}

/** Encodes records as an ABI batch. */
export function encodeBatch(records) {
  const parts = [u32(records.length)];
  for (const r of records) {
    const head = new Uint8Array(12);
    const dv = new DataView(head.buffer);
    dv.setBigInt64(0, BigInt(r.eventTime ?? 0), true);
    dv.setUint32(8, r.input ?? 0, true);
    const key = bytes(r.key ?? "");
    const value = bytes(r.value ?? "");
    const hdr = r.headerBytes ?? encodeHeaders(r.headers ?? []);
    parts.push(head, u32(key.length), key, u32(value.length), value, u32(hdr.length), hdr);
  }
  return concat(parts);
}

function u32(n) {
  const b = new Uint8Array(4);
  new DataView(b.buffer).setUint32(0, n, true);
  return b;
}

export function bytes(v) {
  return typeof v === "string" ? enc.encode(v) : v;
}

function concat(parts) {
  const n = parts.reduce((s, p) => s + p.length, 0);
  const out = new Uint8Array(n);
  let o = 0;
  for (const p of parts) {
    out.set(p, o);
    o += p.length;
  }
  return out;
}

const bin = (b) => Buffer.from(b).toString("latin1");

/** Instance is one guest instance with the host functions bound to it. */
export class Instance {
  constructor(module, host) {
    this.host = host;
    this.phase = "start";
    this.cursor = -1;
    this.records = [];
    this.emitted = 0;
    this.bufPtr = 0;
    this.bufCap = 0;
    this.instance = new WebAssembly.Instance(module, this.imports());
    this.exports = this.instance.exports;
    this.memory = this.exports.memory;
    this.phase = "idle";
  }

  mem() {
    return new Uint8Array(this.memory.buffer);
  }

  read(fn, ptr, len) {
    ptr >>>= 0;
    len >>>= 0;
    const m = this.mem();
    if (ptr + len > m.length) throw new Misuse("BAD_POINTER", fn, `pointer ${ptr} with length ${len} is outside guest memory of ${m.length} bytes`);
    return m.subarray(ptr, ptr + len);
  }

  requireRecord(fn) {
    if (this.phase === "alloc" || this.phase === "start" || this.phase === "idle") throw new Misuse("REENTRANT", fn, `called in phase ${this.phase}`);
    if (this.phase !== "process" || this.cursor < 0 || this.cursor >= this.records.length) throw new Misuse("NO_RECORD", fn, "no current record");
  }

  name(fn, ptr, len, max) {
    len >>>= 0;
    if (len < 1 || len > max) return null;
    return this.read(fn, ptr, len);
  }

  imports() {
    const self = this;
    const host = this.host;
    return {
      wasmstream: {
        record_next() {
          if (self.phase !== "process") self.requireRecord("record_next");
          if (self.cursor >= self.records.length - 1) {
            self.cursor = self.records.length;
            return 0;
          }
          self.cursor++;
          self.emitted = 0;
          self.key = bin(bytes(self.records[self.cursor].key ?? ""));
          return 1;
        },
        state_get(np, nl, op, oc) {
          self.requireRecord("state_get");
          host.calls.state_get++;
          if (host.inject.state_get !== undefined) return host.inject.state_get;
          const name = self.name("state_get", np, nl, 1024);
          if (name === null) return Code.BAD_ARGUMENT;
          const out = self.read("state_get", op, oc);
          const val = host.getLive(self.key, bin(name), self.records[self.cursor]);
          if (val === undefined) return Code.NOT_FOUND;
          if (val.length <= out.length) out.set(val);
          return val.length;
        },
        state_put(np, nl, vp, vl) {
          self.requireRecord("state_put");
          const name = self.name("state_put", np, nl, 1024);
          if (name === null) return Code.BAD_ARGUMENT;
          if (host.inject.state_put !== undefined) return host.inject.state_put;
          if ((vl >>> 0) > host.maxValueLen) return Code.TOO_LARGE;
          const n = bin(name);
          host.put(self.key, n, Uint8Array.from(self.read("state_put", vp, vl)), host.expiryFor(n, self.records[self.cursor]));
          return 0;
        },
        state_delete(np, nl) {
          self.requireRecord("state_delete");
          if (host.inject.state_delete !== undefined) return host.inject.state_delete;
          const name = self.name("state_delete", np, nl, 1024);
          if (name === null) return Code.BAD_ARGUMENT;
          host.put(self.key, bin(name), null);
          return 0;
        },
        emit(op, ol, kp, kl, vp, vl, hp, hl) {
          self.requireRecord("emit");
          const out = self.name("emit", op, ol, 255);
          if (out === null) return Code.BAD_ARGUMENT;
          const output = new TextDecoder().decode(out);
          if (!host.outputs.includes(output)) return Code.UNKNOWN_OUTPUT;
          const lim = host.maxValueLen;
          if ((kl >>> 0) > lim || (vl >>> 0) > lim || (hl >>> 0) > lim) return Code.TOO_LARGE;
          const key = Uint8Array.from(self.read("emit", kp, kl));
          const value = Uint8Array.from(self.read("emit", vp, vl));
          const hdr = Uint8Array.from(self.read("emit", hp, hl));
          if (!validHeaders(hdr)) return Code.BAD_ARGUMENT;
          if (self.emitted >= host.maxEmits) return Code.QUOTA_EXCEEDED;
          self.emitted++;
          self.batchOutputs.push({ record: self.cursor, output, key, value, headerBytes: hdr, headers: decodeHeaders(hdr) });
          return 0;
        },
        log(level, mp, ml) {
          if (self.phase === "alloc" || self.phase === "start" || self.phase === "idle") throw new Misuse("REENTRANT", "log", `called in phase ${self.phase}`);
          const msg = new TextDecoder().decode(self.read("log", mp, ml));
          const rec = self.phase === "process" && self.cursor >= 0 && self.cursor < self.records.length ? self.cursor : -1;
          host.logs.push({ level, msg, record: rec });
        },
        event_time() {
          self.requireRecord("event_time");
          return BigInt(self.records[self.cursor].eventTime ?? 0);
        },
        state_declare(np, nl, version, ttlMs, flags) {
          if (self.phase === "alloc" || self.phase === "start" || self.phase === "idle") throw new Misuse("REENTRANT", "state_declare", `called in phase ${self.phase}`);
          const name = self.name("state_declare", np, nl, 1024);
          if (host.inject.state_declare !== undefined) return host.inject.state_declare;
          if (name === null || name.includes(0) || self.phase !== "init" || version < 1 || ttlMs < -1n || (flags & ~15) !== 0) return Code.BAD_ARGUMENT;
          host.declare({ name: new TextDecoder().decode(name), version, ttlMs: Number(ttlMs), flags });
          return 0;
        },
        processing_time() {
          if (self.phase === "alloc" || self.phase === "start" || self.phase === "idle") throw new Misuse("REENTRANT", "processing_time", `called in phase ${self.phase}`);
          return host.processingTime;
        },
      },
      env: {
        abort(msg, file, line, col) {
          throw new GuestAbort(`abort: ${self.asString(msg)} at ${self.asString(file)}:${line}:${col}`);
        },
      },
    };
  }

  asString(ptr) {
    if (ptr === 0) return "?";
    const m = this.mem();
    const n = new DataView(m.buffer).getUint32(ptr - 4, true);
    return Buffer.from(m.subarray(ptr, ptr + n)).toString("utf16le");
  }

  /** alloc calls ws_alloc(size) as the host does and checks the result. */
  alloc(size) {
    this.phase = "alloc";
    try {
      const p = this.exports.ws_alloc(size) >>> 0;
      if (p === 0 || p + size > this.mem().length) throw new Misuse("BAD_POINTER", "ws_alloc", `returned ${p}`);
      this.bufPtr = p;
      this.bufCap = size;
      return p;
    } finally {
      this.phase = "idle";
    }
  }

  /** init copies config into guest memory and calls ws_init. Returns its code. */
  init(config) {
    const cfg = bytes(config ?? "");
    let ptr = 0;
    if (cfg.length > 0) {
      ptr = this.alloc(cfg.length + Math.floor(cfg.length / 4));
      this.mem().set(cfg, ptr);
    }
    this.phase = "init";
    try {
      return this.exports.ws_init(ptr, cfg.length);
    } finally {
      this.phase = "idle";
    }
  }

  /**
   * process runs one batch. Returns { outputs } or { error: { kind, record, code, message } }
   * with kind "record", "trap" or "misuse"; state is committed only on success.
   */
  process(records, rawBatch) {
    const batch = rawBatch ?? encodeBatch(records);
    if (batch.length > this.bufCap) this.alloc(batch.length + Math.floor(batch.length / 4));
    this.mem().set(batch, this.bufPtr);
    this.records = records;
    this.cursor = -1;
    this.batchOutputs = [];
    this.host.begin();
    this.phase = "process";
    let rc;
    try {
      rc = this.exports.ws_process(this.bufPtr, batch.length);
    } catch (e) {
      this.host.rollback();
      const kind = e instanceof Misuse ? "misuse" : "trap";
      return { error: { kind, record: this.cursor < records.length ? this.cursor : -1, code: e.code, message: String(e.message) } };
    } finally {
      this.phase = "idle";
    }
    if (rc === 0 && this.cursor < records.length - 1) {
      this.host.rollback();
      return { error: { kind: "misuse", record: -1, code: "NO_RECORD", message: "returned before the last record" } };
    }
    if (rc !== 0) {
      this.host.rollback();
      return { error: { kind: rc === Code.GUEST_RECORD ? "record" : "trap", record: Math.min(this.cursor, records.length - 1), code: rc } };
    }
    this.host.commit();
    return { outputs: this.batchOutputs };
  }

  /**
   * migrate calls ws_migrate as the host does during an upgrade: name and
   * value one after the other in the ws_alloc buffer. Returns { value }
   * (a copy), { deleted: true } or { error: { code } }.
   */
  migrate(name, fromVersion, old) {
    const n = bytes(name), v = bytes(old);
    if (n.length + v.length > this.bufCap) this.alloc(n.length + v.length);
    this.mem().set(n, this.bufPtr);
    this.mem().set(v, this.bufPtr + n.length);
    this.phase = "migrate";
    let res;
    try {
      res = BigInt.asIntN(64, BigInt(this.exports.ws_migrate(this.bufPtr, n.length, fromVersion, this.bufPtr + n.length, v.length)));
    } finally {
      this.phase = "idle";
    }
    if (res === BigInt(Code.NOT_FOUND)) return { deleted: true };
    if (res < 0n) return { error: { code: Number(res) } };
    const ptr = Number(res & 0xffffffffn), len = Number(res >> 32n);
    return { value: this.read("ws_migrate", ptr, len).slice() };
  }

  /** pages returns the guest's linear memory size in 64 KiB pages. */
  pages() {
    return this.memory.buffer.byteLength / 65536;
  }
}

function validHeaders(h) {
  const dv = new DataView(h.buffer, h.byteOffset, h.byteLength);
  let p = 0;
  while (p < h.length) {
    for (let i = 0; i < 2; i++) {
      if (h.length - p < 4) return false;
      const n = dv.getUint32(p, true);
      if (h.length - p - 4 < n) return false;
      p += 4 + n;
    }
  }
  return true;
}

/** FakeHost holds the keyed state, logs and limits shared by an operator's instances. */
export class FakeHost {
  constructor(module, opts = {}) {
    this.module = module;
    this.outputs = opts.outputs ?? ["out"];
    this.maxValueLen = opts.maxValueLen ?? 1 << 20;
    this.maxEmits = opts.maxEmits ?? 64;
    this.config = opts.config ?? "";
    this.processingTime = BigInt(opts.processingTime ?? 1_700_000_000_000_000_000n);
    this.committed = new Map();
    this.batch = null;
    this.logs = [];
    this.calls = { state_get: 0 };
    // What ws_init declared (state_declare), in order of first declaration.
    this.declarations = [];
    // Expiries (Unix ns, BigInt) of committed values with a TTL: key -> name -> expiry.
    this.expiry = new Map();
    // inject makes a host function return a code instead of doing its work,
    // e.g. { state_get: -42 } for an error code this SDK does not know.
    this.inject = opts.inject ?? {};
  }

  /** newInstance instantiates the module and runs ws_init; throws when init fails. */
  newInstance() {
    const inst = new Instance(this.module, this);
    const rc = inst.init(this.config);
    if (rc !== 0) {
      const err = new Error(`ws_init returned ${rc}`);
      err.code = rc;
      throw err;
    }
    return inst;
  }

  get(key, name) {
    return this.entry(key, name)?.value;
  }

  /** entry returns { value, expiry } as the batch sees it, or undefined. */
  entry(key, name) {
    const pending = this.batch?.get(key)?.get(name);
    if (pending !== undefined) return pending === null ? undefined : pending;
    const value = this.committed.get(key)?.get(name);
    if (value === undefined) return undefined;
    return { value, expiry: this.expiry.get(key)?.get(name) ?? 0n };
  }

  put(key, name, value, expiry = 0n) {
    if (!this.batch.has(key)) this.batch.set(key, new Map());
    this.batch.get(key).set(name, value === null ? null : { value, expiry });
  }

  /** declare records a declaration, replacing an earlier one of the same name. */
  declare(d) {
    const i = this.declarations.findIndex((e) => e.name === d.name);
    if (i >= 0) this.declarations[i] = d;
    else this.declarations.push(d);
  }

  /** ttlOf returns the declaration with a TTL of a state name (a map entry's is its map's), or undefined. */
  ttlOf(name) {
    const base = name.split("\0")[0];
    return this.declarations.find((d) => d.name === base && d.ttlMs > 0);
  }

  /** now is the clock of a TTL: the record's event time (when it has one) or processing time. */
  now(d, record) {
    const event = BigInt(record?.eventTime ?? 0);
    return (d.flags & 4) !== 0 && event !== 0n ? event : this.processingTime;
  }

  /** expiryFor returns the expiry of a value of name written now, 0n for none. */
  expiryFor(name, record) {
    const d = this.ttlOf(name);
    return d === undefined ? 0n : this.now(d, record) + BigInt(d.ttlMs) * 1000000n;
  }

  /**
   * getLive is get with the TTL rules of state/FORMAT.md 3.1 (no cleanup
   * sweep): an expired value is absent and deleted, unless its state returns
   * expired values; a read under on_read_and_write moves the expiry.
   */
  getLive(key, name, record) {
    const e = this.entry(key, name);
    const d = this.ttlOf(name);
    if (e === undefined || d === undefined) return e?.value;
    const now = this.now(d, record);
    if (e.expiry !== 0n && e.expiry <= now) {
      if ((d.flags & 2) !== 0) return e.value;
      this.put(key, name, null);
      return undefined;
    }
    if ((d.flags & 1) !== 0) {
      const moved = now + BigInt(d.ttlMs) * 1000000n;
      this.put(key, name, e.value, e.expiry > moved ? e.expiry : moved);
    }
    return e.value;
  }

  begin() {
    this.batch = new Map();
  }

  commit() {
    for (const [key, names] of this.batch) {
      if (!this.committed.has(key)) this.committed.set(key, new Map());
      if (!this.expiry.has(key)) this.expiry.set(key, new Map());
      const m = this.committed.get(key);
      const ex = this.expiry.get(key);
      for (const [name, v] of names) {
        ex.delete(name);
        if (v === null) {
          m.delete(name);
          continue;
        }
        m.set(name, v.value);
        if (v.expiry !== 0n) ex.set(name, v.expiry);
      }
    }
    this.batch = null;
  }

  rollback() {
    this.batch = null;
  }

  /** state returns the committed value of name (a string) for key, or undefined. */
  state(key, name) {
    return this.committed.get(bin(bytes(key)))?.get(bin(bytes(name)));
  }

  /**
   * run processes records in batches as the engine does and returns
   * { outputs, deadLetters } with outputs in order and record indexes into records.
   */
  run(records, { batchSize = 512, instance } = {}) {
    let inst = instance ?? this.newInstance();
    const outputs = [];
    const deadLetters = [];
    for (let start = 0; start < records.length; start += batchSize) {
      let idx = [];
      for (let i = start; i < Math.min(start + batchSize, records.length); i++) idx.push(i);
      while (idx.length > 0) {
        const res = inst.process(idx.map((i) => records[i]));
        if (!res.error) {
          for (const o of res.outputs) outputs.push({ ...o, record: idx[o.record] });
          break;
        }
        const r = Math.max(res.error.record, 0);
        deadLetters.push({ ...res.error, record: idx[r] });
        idx = idx.filter((_, j) => j !== r);
        if (res.error.kind !== "record") inst = this.newInstance();
      }
    }
    return { outputs, deadLetters, instance: inst };
  }
}
