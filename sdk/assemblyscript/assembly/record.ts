import { decodeUtf8, stringOf } from "./utf8";
import { Scratch } from "./scratch";

/** One record header. Names are case-sensitive; a name may repeat. */
export class Header {
  constructor(public name: string, public value: string) {}
}

/** nameBuf holds the UTF-8 of the header name being looked up. */
const nameBuf = new Scratch(64);

/**
 * One input record. Its bytes are copies, so an operator may keep a Record
 * or its arrays after process returns.
 */
export class Record {
  constructor(
    /** The record's key, as extracted by the host. State calls during process address this key. */
    public key: Uint8Array,
    /** The record's payload. */
    public value: Uint8Array,
    /** When the event happened, Unix nanoseconds (the JetStream timestamp of the source message). */
    public eventTime: i64,
    /** Index of the operator input the record arrived on, in the order of the pipeline file. */
    public input: i32,
    /** The headers as an ABI header list (abi/ABI.md section 5.2); see header() and headers(). */
    public headerBytes: Uint8Array,
  ) {}

  /** Returns the key decoded as UTF-8 (invalid bytes become U+FFFD). */
  keyString(): string {
    return stringOf(this.key);
  }

  /** Returns the value decoded as UTF-8 (invalid bytes become U+FFFD). */
  valueString(): string {
    return stringOf(this.value);
  }

  /** Returns the value of the first header called name, or null. */
  header(name: string): string | null {
    nameBuf.reset();
    const off = nameBuf.putUtf8(name);
    const want = nameBuf.at(off);
    const wantLen = nameBuf.len - off;
    let p = this.headerBytes.dataStart;
    const end = p + <usize>this.headerBytes.byteLength;
    while (p < end) {
      const n = <usize>load<u32>(p);
      const namePtr = p + 4;
      const v = <usize>load<u32>(namePtr + n);
      const valPtr = namePtr + n + 4;
      if (n == wantLen && memory.compare(namePtr, want, n) == 0) {
        nameBuf.trim();
        return decodeUtf8(valPtr, v);
      }
      p = valPtr + v;
    }
    nameBuf.trim();
    return null;
  }

  /**
   * Returns every header in the order of the record's header list, repeated
   * names included: the engine sorts a message's headers by name (byte
   * order) and keeps the order of one name's values (abi/ABI.md §5.2).
   */
  headers(): Header[] {
    const out = new Array<Header>();
    let p = this.headerBytes.dataStart;
    const end = p + <usize>this.headerBytes.byteLength;
    while (p < end) {
      const n = <usize>load<u32>(p);
      const name = decodeUtf8(p + 4, n);
      const v = <usize>load<u32>(p + 4 + n);
      out.push(new Header(name, decodeUtf8(p + 8 + n, v)));
      p += 8 + n + v;
    }
    return out;
  }
}
