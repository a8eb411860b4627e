/** Decimal is the result of parseDecimal. */
export class Decimal {
  ok: bool = false;
  value: i64 = 0;
}

/**
 * parseDecimal reads a decimal integer as OPERATORS.md defines it: ASCII,
 * an optional leading "-", no "+", no leading zeros except "0" itself, at
 * most 18 digits.
 */
export function parseDecimal(b: Uint8Array): Decimal {
  const d = new Decimal();
  let i = 0;
  const neg = b.length > 0 && b[0] == 0x2D;
  if (neg) i = 1;
  const digits = b.length - i;
  if (digits < 1 || digits > 18) return d;
  if (digits > 1 && b[i] == 0x30) return d;
  let v: i64 = 0;
  for (; i < b.length; i++) {
    const c = b[i];
    if (c < 0x30 || c > 0x39) return d;
    v = v * 10 + <i64>(c - 0x30);
  }
  d.ok = true;
  d.value = neg ? -v : v;
  return d;
}
