// Package entry: `import { ... } from "@wasmstream/sdk"`. The sources live in assembly/.
export * from "./assembly/index";
