// The module's exports: `export * from "@wasmstream/sdk/exports"` in the operator's entry file.
export * from "./assembly/exports";
