import { fileURLToPath } from "node:url";
import { defineConfig } from "vitest/config";

const packages = fileURLToPath(new URL("./packages/", import.meta.url));

export default defineConfig({
  resolve: {
    // Tests run against the TypeScript sources of sibling packages, not their build output: `.` is
    // src/index.ts, a subpath `./<name>` (package.json `exports`) is src/<name>/index.ts.
    alias: [
      { find: /^@informer-ts\/([a-z-]+)$/, replacement: `${packages}$1/src/index.ts` },
      { find: /^@informer-ts\/([a-z-]+)\/([a-z-]+)$/, replacement: `${packages}$1/src/$2/index.ts` },
    ],
  },
  test: {
    include: ["packages/*/src/**/*.test.ts", "test/**/*.test.ts"],
    setupFiles: ["test/setup/fast-check.ts", "test/setup/rxjs-unhandled.ts"],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    pool: "forks",
  },
});
