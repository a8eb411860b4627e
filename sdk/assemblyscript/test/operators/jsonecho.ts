// Parses the value as a flat JSON object and re-emits it field by field with
// JsonWriter (numbers that are not integers as strings), or emits the parse
// error with output key "error".
import { Operator, Record, emit, emitString, register } from "@wasmstream/sdk";
import { FlatObject, JsonKind, JsonWriter } from "@wasmstream/sdk/json";
export * from "@wasmstream/sdk/exports";

class Op extends Operator {
  process(r: Record): Error | null {
    const obj = FlatObject.parse(r.value);
    if (obj.error != null) return emitString("out", "error", obj.error!);
    const w = new JsonWriter();
    for (let i = 0; i < obj.length; i++) {
      const name = obj.nameAt(i);
      const k = obj.kindAt(i);
      if (k == JsonKind.String) w.string(name, obj.stringAt(i));
      else if (k == JsonKind.Integer) w.integer(name, obj.integerAt(i));
      else if (k == JsonKind.Bool) w.bool(name, obj.boolAt(i));
      else if (k == JsonKind.Null) w.null(name);
      else w.string(name, "number");
    }
    return emit("out", r.key, w.finish());
  }
}
register(new Op());
