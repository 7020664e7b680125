#!/usr/bin/env node
// The `sim-cluster` command. This shim is committed (dist/ is not), so `pnpm install` in a fresh checkout can link
// the bin before anything is built; it runs the built entry, dist/main.js, and says what to do when that is missing.
import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";

const entry = new URL("../dist/main.js", import.meta.url);
if (existsSync(fileURLToPath(entry))) {
  await import(entry.href);
} else {
  process.stderr.write(
    `sim-cluster: ${fileURLToPath(entry)} is missing: the package is not built (run \`pnpm build\` in the informer-ts checkout first)\n`,
  );
  process.exitCode = 1;
}
