import { bytesOf, stringOf } from "@wasmstream/sdk";
import { Decimal, parseDecimal } from "./decimal";

// ledger2's encoding of a total: exactly {"total":N}.
const prefix = "{\"total\":";
const suffix = "}";

/** encodeTotal returns {"total":N}. */
export function encodeTotal(total: i64): Uint8Array {
  return bytesOf(prefix + total.toString() + suffix);
}

/** decodeTotal reads exactly {"total":N}; ok is false for anything else. */
export function decodeTotal(b: Uint8Array): Decimal {
  const s = stringOf(b);
  if (!s.startsWith(prefix) || !s.endsWith(suffix) || s.length < prefix.length + suffix.length) return new Decimal();
  return parseDecimal(bytesOf(s.substring(prefix.length, s.length - suffix.length)));
}
