import { FlatObject, JsonKind } from "@wasmstream/sdk/json";

/** Config is the operator's config, from the pipeline file. */
export class Config {
  /** Rejects events above this amount; 0 means no limit. */
  maxCents: i64 = 0;
  /** Why the config was rejected, or null. */
  error: string | null = null;
}

/**
 * parseConfig reads the optional JSON config. Unknown fields are errors, so
 * that a misspelt "max_cents" does not silently turn the limit off.
 */
export function parseConfig(bytes: Uint8Array): Config {
  const cfg = new Config();
  if (isBlank(bytes)) return cfg;
  const obj = FlatObject.parse(bytes);
  const err = obj.error;
  if (err != null) return rejected(cfg, "want {\"max_cents\": N}: " + err);
  for (let i = 0; i < obj.length; i++) {
    if (obj.nameAt(i) != "max_cents") return rejected(cfg, "unknown field \"" + obj.nameAt(i) + "\"; want {\"max_cents\": N}");
  }
  const kind = obj.kind("max_cents");
  if (kind != JsonKind.Integer && kind != JsonKind.Missing && kind != JsonKind.Null) {
    return rejected(cfg, "max_cents must be an integer");
  }
  cfg.maxCents = obj.getInteger("max_cents");
  if (cfg.maxCents < 0) {
    return rejected(cfg, "max_cents is " + cfg.maxCents.toString() + ", want 0 (no limit) or more");
  }
  return cfg;
}

function rejected(cfg: Config, why: string): Config {
  cfg.error = "counter config: " + why;
  return cfg;
}

/** isBlank reports whether bytes hold only JSON whitespace. */
function isBlank(bytes: Uint8Array): bool {
  for (let i = 0; i < bytes.length; i++) {
    const c = bytes[i];
    if (c != 0x20 && c != 0x09 && c != 0x0A && c != 0x0D) return false;
  }
  return true;
}
