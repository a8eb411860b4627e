// `import { FlatObject, JsonKind, JsonWriter } from "@wasmstream/sdk/json"`:
// a flat JSON reader and a Go-compatible JSON writer. The sources live in assembly/.
export * from "./assembly/json";
export * from "./assembly/json_writer";
