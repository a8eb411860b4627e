// Compiles the test operators in test/operators/ with the SDK's asconfig,
// resolving "@wasmstream/sdk" to this folder the way a user's node_modules
// would, and writes the modules to build/test/ (cached per test process).
import asc from "assemblyscript/asc";
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

const here = path.dirname(fileURLToPath(import.meta.url));
const sdkRoot = path.resolve(here, "..");
const buildDir = path.join(sdkRoot, "build", "test");
const libDir = path.join(buildDir, "lib");

function linkSdk() {
  const scope = path.join(libDir, "@wasmstream");
  fs.mkdirSync(scope, { recursive: true });
  const link = path.join(scope, "sdk");
  if (!fs.existsSync(link)) fs.symlinkSync(path.relative(scope, sdkRoot), link);
}

const cache = new Map();

/** Compiles test/operators/<name>.ts and returns a WebAssembly.Module. */
export async function buildOperator(name) {
  if (cache.has(name)) return cache.get(name);
  linkSdk();
  const out = path.join(buildDir, `${name}.wasm`);
  const stderr = [];
  const { error } = await asc.main([
    path.join("test", "operators", `${name}.ts`),
    "--baseDir", sdkRoot,
    "--config", "asconfig.json",
    "--path", libDir,
    "-o", path.join("build", "test", `${name}.wasm`),
  ], {
    stdout: { write: () => true },
    stderr: { write: (s) => { stderr.push(String(s)); return true; } },
  });
  if (error) throw new Error(`building ${name}: ${error.message}\n${stderr.join("")}`);
  const mod = new WebAssembly.Module(fs.readFileSync(out));
  cache.set(name, mod);
  return mod;
}
