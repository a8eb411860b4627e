// Registers no operator: ws_init must fail with GUEST_INTERNAL and say why.
export * from "@wasmstream/sdk/exports";
