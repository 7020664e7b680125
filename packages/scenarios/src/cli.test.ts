// The `informer` CLI run as its built JS (node dist/cli.js), the way `pnpm demo` runs it: the demo must sync from the
// embedded simulated apiserver over HTTP, ride through the two server-side faults and converge.
import { execFileSync, spawn, spawnSync } from "node:child_process";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { beforeAll, describe, expect, it } from "vitest";

const pkg = dirname(dirname(fileURLToPath(import.meta.url)));
const repo = dirname(dirname(pkg));
const cliJs = join(pkg, "dist", "cli.js");

beforeAll(() => {
  // Incremental build of this package and its dependencies, so the test runs the current sources' JS.
  execFileSync(join(repo, "node_modules", ".bin", "tsc"), ["-b", join(pkg, "tsconfig.json")], { stdio: "inherit" });
}, 180_000);

function cli(args: string[]) {
  const run = spawnSync(process.execPath, [cliJs, ...args], { encoding: "utf8", timeout: 120_000 });
  return { code: run.status, stdout: run.stdout, stderr: run.stderr };
}

describe("informer CLI", () => {
  it("demo: syncs from the simulated apiserver over HTTP, survives a dropped watch and a cache re-init, converges", () => {
    const run = cli(["demo", "--objects", "300", "--seconds", "2", "--rate", "100", "--seed", "3"]);
    expect(run.stderr).toBe("");
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/simulated kube-apiserver at http:\/\/127\.0\.0\.1:\d+, 300 ConfigMaps/);
    expect(run.stdout).toContain("synced 300 objects");
    // Counts that depend on real time (how the writes interleave with the informer's requests on a loaded machine)
    // are checked as lower bounds: at least one watch was open to drop, and at least one relist was caused by 410.
    const dropped = /fault: (\d+) watch connection\(s\) dropped/.exec(run.stdout);
    expect(Number(dropped?.[1])).toBeGreaterThanOrEqual(1);
    expect(run.stdout).toMatch(/cacher \(configmaps\): re-initializing, \d+ watchers closed/);
    // The re-initialization empties the history: the reflector's old RV is too old (410) and it relists.
    const relists = /relists (\{.*\})$/m.exec(run.stdout);
    expect(relists).not.toBeNull();
    expect((JSON.parse(relists?.[1] ?? "{}") as Record<string, number>).expired).toBeGreaterThanOrEqual(1);
    expect(run.stdout).toMatch(/watch 200 from cache\s+\d+/);
    expect(run.stdout).toMatch(/^converged: store holds \d+ objects, equal to the apiserver's/m);
  });

  it("a reader that stops early (| head) ends the demo quietly: exit 0, nothing on stderr", async () => {
    const child = spawn(process.execPath, [cliJs, "demo", "--objects", "100", "--seconds", "5", "--rate", "50"]);
    let stderr = "";
    child.stderr.setEncoding("utf8").on("data", (c: string) => {
      stderr += c;
    });
    const exited = new Promise<number | null>((resolve) => child.on("exit", (code) => resolve(code)));
    await new Promise<void>((resolve) => child.stdout.once("data", () => resolve()));
    child.stdout.destroy(); // what `head -1` does once it has its line
    expect(await exited).toBe(0);
    expect(stderr).toBe("");
  });

  it("rejects a bad flag value with a message naming it", () => {
    const run = cli(["demo", "--objects", "lots"]);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('--objects must be a number ≥ 0, got "lots"');
  });

  it("an unknown command prints the usage and exits 2; help exits 0", () => {
    const bad = cli(["frobnicate"]);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('unknown command "frobnicate"');
    expect(bad.stderr).toContain("usage: informer <command>");
    expect(cli(["help"]).code).toBe(0);
  });
});
