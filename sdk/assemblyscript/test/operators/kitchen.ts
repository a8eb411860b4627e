// A command-driven operator that exercises the whole SDK API. The record
// value is a command; see the cases in sdk.test.mjs.
import {
  BoolCodec, BytesCodec, Code, Float64Codec, Header, HostError, Int64Codec, Level, MapState, Operator,
  Record, StringCodec, Uint64Codec, ValueState, emit, emitString, eventTime, log, logDebug,
  logError, logInfo, logTrace, logWarn, processingTime, register, stringOf,
} from "@wasmstream/sdk";

export * from "@wasmstream/sdk/exports";

const count = new ValueState<i64>("count");
const text = new ValueState<string>("text");
const flag = new ValueState<bool>("flag");
const unsigned = new ValueState<u64>("u64", new Uint64Codec());
const float = new ValueState<f64>("f64", new Float64Codec());
const raw = new ValueState<Uint8Array>("raw", new BytesCodec());
const counter = new ValueState<i64>("count-explicit", new Int64Codec());
const boolExplicit = new ValueState<bool>("bool-explicit", new BoolCodec());
const strExplicit = new ValueState<string>("str-explicit", new StringCodec());
const m = new MapState<string>("m");

/** garbage keeps nothing: it only makes the collector work. */
let garbage: Uint8Array | null = null;

class Kitchen extends Operator {
  private config: string = "";

  init(config: Uint8Array): Error | null {
    this.config = stringOf(config);
    if (this.config == "reject") return new Error("config says reject");
    log(Level.Info, "init with " + config.byteLength.toString() + " config bytes");
    return null;
  }

  process(r: Record): Error | null {
    const cmd = r.valueString();
    const colon = cmd.indexOf(":");
    const verb = colon < 0 ? cmd : cmd.substring(0, colon);
    const arg = colon < 0 ? "" : cmd.substring(colon + 1);
    if (verb == "count") return this.count(r);
    if (verb == "config") return emitString("out", r.keyString(), this.config);
    if (verb == "fail") return new Error("failing on purpose: " + arg);
    if (verb == "trap") unreachable();
    if (verb == "assert") assert(false, "asserted on purpose");
    if (verb == "index") return emitString("out", "", [1, 2, 3][4].toString());
    if (verb == "unknown-output") return emit("nope", r.key, r.value);
    if (verb == "empty-output") return emit("", r.key, r.value);
    if (verb == "big-put") return text.put("x".repeat(I32.parseInt(arg)));
    if (verb == "big-emit") return emitString("out", "", "x".repeat(I32.parseInt(arg)));
    if (verb == "quota") return this.quota(I32.parseInt(arg));
    if (verb == "headers") return this.headers(r);
    if (verb == "time") return this.time(r);
    if (verb == "input") return emitString("out", r.keyString(), r.input.toString());
    if (verb == "logs") return this.logs();
    if (verb == "codecs") return this.codecs();
    if (verb == "bad-codec") return this.badCodec();
    if (verb == "map-put") return this.mapPut(arg);
    if (verb == "map-get") return this.mapGet(arg);
    if (verb == "map-del") return m.delete(arg);
    if (verb == "map-long") return m.put("k".repeat(I32.parseInt(arg)), "v");
    if (verb == "text-put") return text.put(arg);
    if (verb == "text-get") return this.textGet();
    if (verb == "delete") return count.delete();
    if (verb == "garbage") return this.garbage(I32.parseInt(arg));
    if (verb == "emit-empty") return emit("out", new Uint8Array(0), new Uint8Array(0));
    if (verb == "code-of") return this.codeOf(emit("nope", r.key, r.value));
    return new Error("unknown command " + cmd);
  }

  private count(r: Record): Error | null {
    const got = count.get();
    if (got.error) return got.error;
    const n = got.or(0) + 1;
    const err = count.put(n);
    if (err) return err;
    return emit("out", r.key, r.value, [new Header("count", n.toString())]);
  }

  private quota(n: i32): Error | null {
    for (let i = 0; i < n; i++) {
      const err = emitString("out", "k", i.toString());
      if (err) return err;
    }
    return null;
  }

  private headers(r: Record): Error | null {
    const hs = r.headers();
    const out = new Array<Header>();
    for (let i = 0; i < hs.length; i++) out.push(new Header(hs[i].name + "!", hs[i].value));
    const x = r.header("x");
    return emitString("out", r.keyString(), x == null ? "<none>" : x!, out);
  }

  private time(r: Record): Error | null {
    return emitString("out", "", r.eventTime.toString() + "," + eventTime().toString() + "," + processingTime().toString());
  }

  private logs(): Error | null {
    logTrace("t");
    logDebug("d");
    logInfo("i");
    logWarn("w");
    logError("e");
    log(<Level>9, "clamped");
    return null;
  }

  private codecs(): Error | null {
    let err = count.put(-2);
    if (err) return err;
    err = counter.put(i64.MIN_VALUE);
    if (err) return err;
    err = unsigned.put(u64.MAX_VALUE);
    if (err) return err;
    err = float.put(1.5);
    if (err) return err;
    err = flag.put(true);
    if (err) return err;
    err = boolExplicit.put(false);
    if (err) return err;
    err = text.put("héllo 😀");
    if (err) return err;
    err = strExplicit.put("");
    if (err) return err;
    const b = new Uint8Array(3);
    b[0] = 0; b[1] = 255; b[2] = 7;
    err = raw.put(b);
    if (err) return err;
    const got = [
      count.get().or(0).toString(),
      counter.get().or(0).toString(),
      unsigned.get().or(0).toString(),
      float.get().or(0).toString(),
      flag.get().or(false).toString(),
      boolExplicit.get().found.toString() + "/" + boolExplicit.get().or(true).toString(),
      text.get().or(""),
      strExplicit.get().found.toString(),
      raw.get().or(new Uint8Array(0)).join("."),
    ];
    return emitString("out", "", got.join("|"));
  }

  private badCodec(): Error | null {
    // "text" holds a string; reading it as i64 must fail to decode.
    const err = text.put("abc");
    if (err) return err;
    const wrong = new ValueState<i64>("text");
    const got = wrong.get();
    if (got.error) return emitString("out", "", got.error!.message);
    return new Error("decoded a 3-byte string as i64");
  }

  private mapPut(arg: string): Error | null {
    const eq = arg.indexOf("=");
    return m.put(arg.substring(0, eq), arg.substring(eq + 1));
  }

  private mapGet(arg: string): Error | null {
    const got = m.get(arg);
    if (got.error) return got.error;
    return emitString("out", arg, got.found ? got.value : "<absent>");
  }

  private textGet(): Error | null {
    const got = text.get();
    if (got.error) return got.error;
    return emitString("out", "", got.found ? got.value.length.toString() + ":" + got.value.substring(0, 10) : "<absent>");
  }

  private garbage(n: i32): Error | null {
    for (let i = 0; i < 4; i++) garbage = new Uint8Array(n);
    garbage = null;
    return null;
  }

  private codeOf(err: Error | null): Error | null {
    if (err instanceof HostError) {
      const h = err as HostError;
      return emitString("out", "", h.code.toString() + " " + (h.code == Code.UNKNOWN_OUTPUT ? "UNKNOWN_OUTPUT" : "?") + " " + h.op + " " + h.subject);
    }
    return new Error("not a HostError");
  }
}

register(new Kitchen());
