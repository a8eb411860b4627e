/**
 * Got is the result of a state read: found and value when there was a
 * value, found = false when there was none, and error when the read failed
 * (then found is false too). A missing value is not an error.
 *
 *     const got = total.get();
 *     if (got.error) return got.error;
 *     const sum = got.or(0);
 */
export class Got<T> {
  constructor(
    /** Whether the key has a value under this name. */
    public found: bool,
    /** The value; meaningful only when found. */
    public value: T,
    /** Why the read failed, or null. */
    public error: Error | null,
  ) {}

  /** Returns the value when found, else fallback. */
  or(fallback: T): T {
    return this.found ? this.value : fallback;
  }
}

/** zero returns T's zero value: 0, false, or null for references (never read while found is false). */
export function zero<T>(): T {
  if (isReference<T>()) return changetype<T>(0);
  return <T>0;
}

/** absent returns the result of a read that found nothing. */
export function absent<T>(): Got<T> {
  return new Got<T>(false, zero<T>(), null);
}

/** failed returns the result of a read that failed. */
export function failed<T>(err: Error): Got<T> {
  return new Got<T>(false, zero<T>(), err);
}
