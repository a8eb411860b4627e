// The wasmstream AssemblyScript SDK: write a stateful stream operator as an
// AssemblyScript class and build it to a WebAssembly module for the
// wasmstream host (ABI v1 revision 1.2, abi/ABI.md).
//
//     import { Operator, Record, ValueState, emit, register } from "@wasmstream/sdk";
//     export * from "@wasmstream/sdk/exports";
//
//     const count = new ValueState<i64>("count");
//
//     class Counter extends Operator {
//       process(r: Record): Error | null {
//         const got = count.get();
//         if (got.error) return got.error;
//         const err = count.put(got.or(0) + 1);
//         if (err) return err;
//         return emit("out", r.key, r.value);
//       }
//     }
//
//     register(new Counter());

export { Operator, register } from "./operator";
export { Record, Header } from "./record";
export { ValueState } from "./value_state";
export { MapState } from "./map_state";
export {
  StateOptions, Ttl, TtlUpdate, TtlVisibility, declareState,
  ttlUnset, ttlNever, declareReadAndWrite, declareReturnExpired, declareEventTime, declareMigrates,
} from "./declare";
export { MigrateFn, Migrated } from "./migrate";
export { Dedup } from "./dedup";
export { Got } from "./got";
export { Codec, Int64Codec, Uint64Codec, Float64Codec, BoolCodec, StringCodec, BytesCodec, defaultCodec } from "./codec";
export { emit, emitString } from "./emit";
export { Level, log, logTrace, logDebug, logInfo, logWarn, logError } from "./log";
export { eventTime, processingTime } from "./clock";
export { Code, codeName } from "./codes";
export { HostError, DecodeError } from "./errors";
export { bytesOf, stringOf, equalBytes } from "./utf8";
