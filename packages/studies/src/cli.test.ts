// The `informer` CLI run as its built JS (node dist/cli.js), the way `pnpm demo` runs it: the demo must sync from the
// embedded simulated apiserver over HTTP, ride through the two server-side faults and converge.
import { execFileSync, spawn, spawnSync } from "node:child_process";
import { cpSync, mkdirSync, mkdtempSync, readFileSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
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

/** Runs the root launcher (what `pnpm demo|informer|bench|apiserver` run) from `root`. */
function launch(root: string, args: string[]) {
  const run = spawnSync(process.execPath, [join(root, "scripts", "launch.mjs"), ...args], {
    encoding: "utf8",
    timeout: 120_000,
  });
  return { code: run.status, stdout: run.stdout, stderr: run.stderr };
}

describe("informer CLI", () => {
  it("demo: syncs from the simulated apiserver over HTTP, checks both faults' outcomes, converges, exits 0", () => {
    // --downtime 2: a margin for a loaded machine, where the re-watch must still meet the unready cache (429).
    const run = cli(["demo", "--objects", "300", "--seconds", "2", "--rate", "100", "--seed", "3", "--downtime", "2"]);
    expect(run.stderr).toBe("");
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/^informer demo: 300 ConfigMaps, churn 100 changes\/s for 2 s, seed 3/);
    expect(run.stdout).toMatch(/^ {2}simulated kube-apiserver at http:\/\/127\.0\.0\.1:\d+$/m);
    expect(run.stdout).toContain("synced 300 objects");
    expect(run.stdout).toMatch(
      /fault 1: [1-9]\d* watch connection\(s\) dropped at RV \d+.*\n {2}✓ re-watched from RV \d+, no relist\n/,
    );
    expect(run.stdout).toMatch(/cacher \(configmaps\): re-initializing, \d+ watchers closed/);
    expect(run.stdout).toMatch(/^ {2}✓ \d+× 429 while unready, then 410 and exactly one relist/m);
    expect(run.stdout).toMatch(/relists: expired 1$/m);
    expect(run.stdout).toMatch(/watch 200 from cache\s+\d+/);
    expect(run.stdout).toMatch(/^✓ converged: the store holds \d+ objects, equal to the apiserver's/m);
    expect(run.stdout).toMatch(/^all 3 checks passed\n$/m);
  });

  it("Ctrl-C (SIGINT) during the demo says so, stops the informer and the apiserver, and exits 130", async () => {
    const child = spawn(process.execPath, [cliJs, "demo", "--objects", "200", "--seconds", "60", "--rate", "20"]);
    let stdout = "";
    let stderr = "";
    child.stderr.setEncoding("utf8").on("data", (c: string) => {
      stderr += c;
    });
    const exited = new Promise<number | null>((resolve) => child.on("exit", (code) => resolve(code)));
    await new Promise<void>((resolve) =>
      child.stdout.setEncoding("utf8").on("data", (c: string) => {
        stdout += c;
        if (stdout.includes("synced 200 objects")) resolve();
      }),
    );
    child.kill("SIGINT");
    expect(await exited).toBe(130);
    expect(stderr).toBe(
      "\ninformer: interrupted (Ctrl-C); stopping the informer and the apiserver…\n" +
        "informer: stopped cleanly after Ctrl-C\n",
    );
    expect(stdout).not.toContain("checks passed");
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

  it("rejects a bad flag value with a message naming it (exit 2)", () => {
    const run = cli(["demo", "--objects", "lots"]);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('informer: --objects must be a number ≥ 0, got "lots"');
  });

  it("--help, -h and help print the usage with commands, flags, environment and exit statuses, exit 0", () => {
    for (const args of [["--help"], ["-h"], ["help"], []]) {
      const run = cli(args);
      expect(run.code).toBe(0);
      expect(run.stderr).toBe("");
      expect(run.stdout).toMatch(/^Usage: informer <command> \[flags\]/);
      expect(run.stdout).toMatch(/^ {2}demo {8}run a SharedIndexInformer/m);
      expect(run.stdout).toContain("-h, --help");
      expect(run.stdout).toContain("Environment: none is read.");
      expect(run.stdout).toContain("130 interrupted (Ctrl-C)");
    }
    for (const args of [
      ["demo", "--help"],
      ["demo", "-h"],
      ["help", "demo"],
      ["demo", "--objects", "5", "-h"],
    ]) {
      const run = cli(args);
      expect(run.code).toBe(0);
      expect(run.stdout).toMatch(/^Usage: informer demo \[flags\]/);
      for (const flag of [
        "--objects <n>",
        "--seconds <s>",
        "--rate <r>",
        "--seed <k>",
        "--sync-timeout <s>",
        "--downtime <s>",
      ]) {
        expect(run.stdout).toContain(flag);
      }
      expect(run.stdout).toContain("marked ✓ or ✗");
      expect(run.stdout).not.toContain("synced");
    }
  });

  it("unknown commands and flags exit 2 with the closest known one", () => {
    const cmd = cli(["dmeo"]);
    expect(cmd.code).toBe(2);
    expect(cmd.stderr).toBe(
      'informer: unknown command "dmeo"; did you mean demo?\n(informer --help lists the commands and flags)\n',
    );
    const far = cli(["frobnicate"]);
    expect(far.code).toBe(2);
    expect(far.stderr).toMatch(/^informer: unknown command "frobnicate"\n/);
    const flag = cli(["demo", "--object", "5"]);
    expect(flag.code).toBe(2);
    expect(flag.stderr).toBe(
      "informer: unknown option --object; did you mean --objects?\n(informer demo --help lists its flags)\n",
    );
    const helpOf = cli(["help", "scenarios"]);
    expect(helpOf.code).toBe(2);
    expect(helpOf.stderr).toBe(
      'informer: unknown command "scenarios"; did you mean scenario?\n(informer --help lists the commands and flags)\n',
    );
    const global = cli(["--hepl"]);
    expect(global.code).toBe(2);
    expect(global.stderr).toMatch(/^informer: unknown option --hepl; did you mean --help\?/);
  });
});

describe("the root launcher (pnpm demo, informer, bench, apiserver)", () => {
  // A copy of the launcher and the usage modules in a directory with no tsconfig and no dist: any attempt to build
  // or to run a built command would fail there, so a help that works was answered without building.
  let bare: string;
  beforeAll(() => {
    bare = mkdtempSync(join(tmpdir(), "launch-"));
    for (const file of [
      "scripts/launch.mjs",
      "packages/studies/src/cli-usage.ts",
      "packages/bench/src/usage.ts",
      "packages/sim-apiserver/src/cli/cli-usage.ts",
    ]) {
      mkdirSync(dirname(join(bare, file)), { recursive: true });
      cpSync(join(repo, file), join(bare, file));
    }
    symlinkSync(join(repo, "node_modules"), join(bare, "node_modules"));
  });

  it("answers --help for every command without building", () => {
    const bench = launch(bare, ["bench", "--help"]);
    expect(bench.code).toBe(0);
    expect(bench.stdout).toMatch(/^Usage: pnpm bench \[suite…\]/);
    expect(bench.stdout).toContain("or all of them (in this order) when none is named");
    const one = launch(bare, ["bench", "workqueue", "--help"]);
    expect(one.code).toBe(0);
    expect(one.stdout).toMatch(/^Usage: pnpm bench workqueue\n/);
    expect(launch(bare, ["bench", "reflector", "-h"]).stdout).toContain("BENCH_REFLECTOR_HTTP_N");
    expect(launch(bare, ["apiserver", "--help"]).stdout).toMatch(/^Usage: pnpm apiserver \[flags\]/);
    expect(launch(bare, ["informer", "-h"]).stdout).toMatch(/^Usage: informer <command>/);
    expect(launch(bare, ["demo", "--help"]).stdout).toMatch(/^Usage: informer demo \[flags\]/);
    expect(launch(bare, ["informer", "analyze-logs", "--help"]).stdout).toMatch(/^Usage: informer analyze-logs /);
    for (const r of [one, bench]) expect(r.stderr).toBe("");
  });

  it("says it is compiling on a first run, and reports a failed build with its status", () => {
    const run = launch(bare, ["bench", "workqueue"]);
    expect(run.code).not.toBe(0);
    expect(run.stderr).toContain("informer-ts: first run: compiling the TypeScript packages (tsc -b");
    expect(run.stderr).toMatch(/informer-ts: the build failed \(tsc -b .* exited \d+\)/);
  });

  it("an unknown command names the commands", () => {
    const run = launch(bare, ["nope"]);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain("usage: node scripts/launch.mjs <demo|informer|bench|apiserver>");
  });

  it("runs the built command with the arguments and passes its exit status through", () => {
    const run = launch(repo, ["informer", "dmeo"]);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain("did you mean demo?");
  });
});

describe("informer scenario", () => {
  it("lists the studies and explains each one's flags", () => {
    const list = cli(["scenario", "--help"]);
    expect(list.code).toBe(0);
    expect(list.stdout).toContain("statefulset-resync");
    const one = cli(["scenario", "statefulset-resync", "--help"]);
    expect(one.code).toBe(0);
    expect(one.stdout).toContain("--statefulsets <n>");
    expect(one.stdout).toContain("(default 2000)");
  });

  it("names an unknown study or flag with a suggestion and exits 2", () => {
    const r = cli(["scenario", "statefulset-resyn"]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('unknown scenario "statefulset-resyn"; did you mean statefulset-resync?');
    const f = cli(["scenario", "statefulset-resync", "--workers", "0"]);
    expect(f.code).toBe(2);
    expect(f.stderr).toContain('--workers must be an integer ≥ 1, got "0"');
    const late = cli(["scenario", "statefulset-resync", "--duration", "120"]);
    expect(late.code).toBe(2);
    expect(late.stderr).toContain("--duration 120 ends before the last probe is created");
    expect(late.stderr).toContain("= 220 s)");
    const rt = cli(["scenario", "kubelet-configmap", "--real-time"]);
    expect(rt.code).toBe(2);
    expect(rt.stderr).toContain("scenario kubelet-configmap does not support --real-time");
    const sweep = cli(["scenario", "watch-rv0-churn", "--sweep-writes", "10,x"]);
    expect(sweep.code).toBe(2);
    expect(sweep.stderr).toContain('--sweep-writes: "x" is not a number > 0 (in "10,x")');
  });

  it("runs statefulset-resync small, prints the summary with the write-up's figures and writes --json", () => {
    const dir = mkdtempSync(join(tmpdir(), "scenario-"));
    const json = join(dir, "out.json");
    const r = cli([
      "scenario",
      "statefulset-resync",
      ...["--statefulsets", "300", "--resync", "5", "--duration", "40", "--probe-start", "20", "--probe-interval", "5"],
      ...["--variants", "resync,no-resync", "--json", json],
    ]);
    expect(r.stderr).toContain("[resync] t=30s");
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/write-up\s+measured/);
    expect(r.stdout).toContain("12 s (300 × 40 ms)");
    const data = JSON.parse(readFileSync(json, "utf8"));
    expect(data.scenario).toBe("statefulset-resync");
    expect(data.variants).toHaveLength(2);
    expect(data.params.statefulsets).toBe(300);
  });
});
