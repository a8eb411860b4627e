// Bad state declarations: ws_init must fail with GUEST_INTERNAL and log each problem.
import { MapState, Operator, Record, ValueState, register } from "@wasmstream/sdk";
export * from "@wasmstream/sdk/exports";

class Point { x: i32 = 0; }

const empty = new ValueState<i64>("");
const nul = new ValueState<i64>("a\0b");
const long = new MapState<i64>("n".repeat(1024));
const noCodec = new ValueState<Point>("point");

class Op extends Operator {
  process(r: Record): Error | null {
    return null;
  }
}
register(new Op());
register(new Op());

export function _keep(): bool {
  return empty.name.length + nul.name.length + long.name.length + noCodec.name.length > 0;
}
