// The host functions of ABI v1 revision 1.1 (abi/ABI.md section 6), all imported from
// the "wasmstream" module. Pointers are offsets in linear memory and lengths
// are byte counts; the host reads both as unsigned 32-bit integers.
//
// These declarations are internal to the SDK: operators use the typed
// wrappers (Record, ValueState, MapState, emit, log, eventTime...).

// @ts-ignore: decorator
@external("wasmstream", "record_next")
export declare function hostRecordNext(): i32;

// @ts-ignore: decorator
@external("wasmstream", "state_get")
export declare function hostStateGet(namePtr: usize, nameLen: usize, outPtr: usize, outCap: usize): i32;

// @ts-ignore: decorator
@external("wasmstream", "state_put")
export declare function hostStatePut(namePtr: usize, nameLen: usize, valPtr: usize, valLen: usize): i32;

// @ts-ignore: decorator
@external("wasmstream", "state_delete")
export declare function hostStateDelete(namePtr: usize, nameLen: usize): i32;

// @ts-ignore: decorator
@external("wasmstream", "emit")
export declare function hostEmit(
  outPtr: usize, outLen: usize,
  keyPtr: usize, keyLen: usize,
  valPtr: usize, valLen: usize,
  hdrPtr: usize, hdrLen: usize,
): i32;

// @ts-ignore: decorator
@external("wasmstream", "log")
export declare function hostLog(level: i32, msgPtr: usize, msgLen: usize): void;

// @ts-ignore: decorator
@external("wasmstream", "event_time")
export declare function hostEventTime(): i64;

// @ts-ignore: decorator
@external("wasmstream", "processing_time")
export declare function hostProcessingTime(): i64;

// Revision 1.1 (section 6.10): declares a state's version and TTL, in ws_init only.
// @ts-ignore: decorator
@external("wasmstream", "state_declare")
export declare function hostStateDeclare(namePtr: usize, nameLen: usize, version: i32, ttlMs: i64, flags: i32): i32;

// env.abort is AssemblyScript's default abort import, which the wasmstream
// host provides as a trap that carries the message. The SDK's abort
// (abort.ts) logs first and then calls it.
// @ts-ignore: decorator
@external("env", "abort")
export declare function hostAbort(msg: usize, file: usize, line: u32, column: u32): void;
