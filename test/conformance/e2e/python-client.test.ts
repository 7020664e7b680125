// The e2e tests re-implemented a second time with the official Kubernetes Python client (python3-kubernetes) against
// the simulator over HTTP — what a user's Python tooling sees. Each upstream test with a `python` script in
// upstream-tests.ts is run as `/usr/bin/python3 python/<script> <url> "<It text>"`; the test fails with the
// script's output when the script fails. Without /usr/bin/python3 or its `kubernetes` module the tests are skipped
// with the reason printed once (a failure under INTEROP_REQUIRED=1).
import { spawn, spawnSync } from "node:child_process";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type E2eCluster, startE2eCluster } from "./harness.js";
import { UPSTREAM_TESTS } from "./upstream-tests.js";

const PYTHON = "/usr/bin/python3";
const scripts = join(dirname(fileURLToPath(import.meta.url)), "python");

/** Why the Python client cannot run here, or undefined when it can. */
function unavailable(): string | undefined {
  const probe = spawnSync(PYTHON, ["-c", "import kubernetes; print(kubernetes.__version__)"], { encoding: "utf8" });
  if (probe.error !== undefined) return `${PYTHON} cannot be run (${probe.error.message})`;
  if (probe.status !== 0) return `${PYTHON} has no 'kubernetes' module (install python3-kubernetes)`;
  return undefined;
}

const reason = unavailable();
if (reason !== undefined) console.log(`interop test skipped: e2e via the Python client: ${reason}`);
// As the interop tests: INTEROP_REQUIRED=1 (CI, which installs python3-kubernetes) turns the skip into a failure.
if (reason !== undefined && process.env.INTEROP_REQUIRED === "1") {
  describe("[python] the e2e tests through the Kubernetes Python client", () => {
    it("INTEROP_REQUIRED=1: the Python client must be present", () => {
      expect.fail(reason);
    });
  });
}

function runScript(script: string, url: string, itText: string): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve) => {
    const child = spawn(PYTHON, [join(scripts, script), url, itText], { cwd: scripts });
    let output = "";
    child.stdout.on("data", (d: Buffer) => (output += d.toString()));
    child.stderr.on("data", (d: Buffer) => (output += d.toString()));
    child.on("close", (code) => resolve({ code, output }));
  });
}

describe.skipIf(reason !== undefined)("[python] the e2e tests through the Kubernetes Python client", () => {
  let c: E2eCluster;
  beforeAll(async () => {
    c = await startE2eCluster();
  });
  afterAll(async () => {
    await c.close();
  });

  for (const t of UPSTREAM_TESTS) {
    if (t.python === undefined) continue;
    const script = t.python;
    it(`[python] ${t.file}: ${t.it}`, async () => {
      const { code, output } = await runScript(script, c.url, t.it);
      expect(output, output).toContain(`PASS ${t.it}`);
      expect(code).toBe(0);
    }, 60_000);
  }
});
