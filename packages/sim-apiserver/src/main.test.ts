// The `pnpm apiserver` command, run as its built JS (node dist/main.js) the way users run it.
import { type ChildProcess, execFileSync, spawn } from "node:child_process";
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import type { AddressInfo } from "node:net";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { beforeAll, describe, expect, it } from "vitest";
import { parse } from "yaml";
import { fetchRaw, openStream } from "./http/http-client.test-util.js";

const pkg = dirname(dirname(fileURLToPath(import.meta.url)));
const repo = dirname(dirname(pkg));
const mainJs = join(pkg, "dist", "main.js");

beforeAll(() => {
  // Build (incremental) so the test runs the current sources' JS.
  execFileSync(join(repo, "node_modules", ".bin", "tsc"), ["-b", join(pkg, "tsconfig.json")], { stdio: "inherit" });
}, 180_000);

interface Started {
  readonly child: ChildProcess;
  readonly firstLine: string;
  readonly url: string;
  stderr(): string;
  /** Resolves with the stderr written so far once it matches `re` (as it arrives: no polling, no sleeps). */
  stderrMatching(re: RegExp): Promise<string>;
  stop(signal?: NodeJS.Signals): Promise<number | null>;
}

function start(args: string[]): Promise<Started> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [mainJs, ...args], { stdio: ["ignore", "pipe", "pipe"] });
    let out = "";
    let err = "";
    const exited = new Promise<number | null>((r) => child.on("exit", (code) => r(code)));
    const waiters: Array<{ re: RegExp; resolve: (s: string) => void }> = [];
    const wake = () => {
      for (const w of waiters.splice(0)) {
        if (w.re.test(err)) w.resolve(err);
        else waiters.push(w);
      }
    };
    child.stderr!.setEncoding("utf8").on("data", (c: string) => {
      err += c;
      wake();
    });
    child.stdout!.setEncoding("utf8").on("data", (c: string) => {
      out += c;
      const nl = out.indexOf("\n");
      if (nl >= 0) {
        const firstLine = out.slice(0, nl + 1);
        resolve({
          child,
          firstLine,
          url: firstLine.replace(/^listening on /, "").trim(),
          stderr: () => err,
          stderrMatching: (re) =>
            new Promise<string>((r) => {
              waiters.push({ re, resolve: r });
              wake();
            }),
          stop: async (signal = "SIGTERM") => {
            child.kill(signal);
            return exited;
          },
        });
      }
    });
    child.on("exit", (code) => reject(new Error(`exited ${code} before listening: ${err}`)));
  });
}

function runToExit(args: string[]): { code: number; stdout: string; stderr: string } {
  try {
    const stdout = execFileSync(process.execPath, [mainJs, ...args], {
      encoding: "utf8",
      stdio: ["ignore", "pipe", "pipe"],
    });
    return { code: 0, stdout, stderr: "" };
  } catch (e) {
    const err = e as { status: number; stdout: string; stderr: string };
    return { code: err.status, stdout: err.stdout, stderr: err.stderr };
  }
}

describe("apiserver command", () => {
  it("prints exactly `listening on http://127.0.0.1:<port>`, serves, and exits 0 on SIGTERM and SIGINT", async () => {
    for (const sig of ["SIGTERM", "SIGINT"] as const) {
      const s = await start(["--port", "0"]);
      expect(s.firstLine).toMatch(/^listening on http:\/\/127\.0\.0\.1:\d+\n$/);
      expect((await fetchRaw(`${s.url}/healthz`)).text).toBe("ok");
      expect(await s.stop(sig)).toBe(0);
    }
  });

  it("--seed loads multi-document YAML (a List included); the objects are served", async () => {
    const dir = mkdtempSync(join(tmpdir(), "apiserver-seed-"));
    const seed = join(dir, "seed.yaml");
    writeFileSync(
      seed,
      "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a}\ndata: {x: '1'}\n---\napiVersion: v1\nkind: List\nitems:\n- apiVersion: v1\n  kind: ConfigMap\n  metadata: {name: b, namespace: other}\n---\napiVersion: v1\nkind: Namespace\nmetadata: {name: seeded}\n",
    );
    const s = await start(["--seed", seed]);
    try {
      const all = (await fetchRaw(`${s.url}/api/v1/configmaps`)).json as {
        items: Array<{ metadata: { name: string; namespace: string } }>;
      };
      expect(all.items.map((i) => `${i.metadata.namespace}/${i.metadata.name}`)).toEqual(["default/a", "other/b"]);
      // Seeded objects get the defaulting of created ones: the Namespace is Active, with the kubernetes finalizer.
      const ns = (await fetchRaw(`${s.url}/api/v1/namespaces/seeded`)).json as { spec?: unknown; status?: unknown };
      expect(ns.status).toEqual({ phase: "Active" });
      expect(ns.spec).toEqual({ finalizers: ["kubernetes"] });
    } finally {
      expect(await s.stop()).toBe(0);
    }
  });

  it("--seed is not subject to --fault rules: seeded objects are stored, the first real request gets the fault", async () => {
    const dir = mkdtempSync(join(tmpdir(), "apiserver-seed-fault-"));
    const seed = join(dir, "seed.yaml");
    writeFileSync(
      seed,
      "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a}\n---\napiVersion: v1\nkind: ConfigMap\nmetadata: {name: b}\n",
    );
    const s = await start([
      "--seed",
      seed,
      "--fault",
      '{"type":"status","code":500,"message":"etcd is sad","count":1}',
    ]);
    try {
      const faulted = await fetchRaw(`${s.url}/api/v1/namespaces/default/configmaps`);
      expect(faulted.status).toBe(500);
      const list = (await fetchRaw(`${s.url}/api/v1/namespaces/default/configmaps`)).json as {
        items: Array<{ metadata: { name: string } }>;
      };
      expect(list.items.map((i) => i.metadata.name)).toEqual(["a", "b"]);
    } finally {
      expect(await s.stop()).toBe(0);
    }
  });

  it("--tls --token --kubeconfig-out: https URL, 401 without the token, a kubeconfig that works", async () => {
    const dir = mkdtempSync(join(tmpdir(), "apiserver-tls-"));
    const kc = join(dir, "kubeconfig");
    const s = await start(["--tls", "--token", "t0ken", "--kubeconfig-out", kc]);
    try {
      expect(s.firstLine).toMatch(/^listening on https:\/\/127\.0\.0\.1:\d+\n$/);
      const cfg = parse(readFileSync(kc, "utf8"));
      const cluster = cfg.clusters[0].cluster;
      expect(cluster.server).toBe(s.url);
      const ca = Buffer.from(cluster["certificate-authority-data"], "base64").toString();
      expect(cfg.users[0].user.token).toBe("t0ken");
      expect((await fetchRaw(`${s.url}/api/v1/namespaces/default/configmaps`, { ca })).status).toBe(401);
      const ok = await fetchRaw(`${s.url}/api/v1/namespaces/default/configmaps`, {
        ca,
        headers: { authorization: "Bearer t0ken" },
      });
      expect(ok.status).toBe(200);
    } finally {
      expect(await s.stop()).toBe(0);
    }
  });

  it("--fault injects HTTP faults; /_sim/faults shows and clears them", async () => {
    const s = await start(["--fault", '{"type":"apf-429","verbs":["list"],"count":1,"retryAfterSeconds":2}']);
    try {
      const r = await fetchRaw(`${s.url}/api/v1/namespaces/default/configmaps`);
      expect(r.status).toBe(429);
      expect(r.headers["retry-after"]).toBe("2");
      expect((await fetchRaw(`${s.url}/api/v1/namespaces/default/configmaps`)).status).toBe(200);
      expect((await fetchRaw(`${s.url}/_sim/faults`)).json).toMatchObject({
        faults: [{ id: 1, matched: 2, fired: 1 }],
      });
      expect((await fetchRaw(`${s.url}/_sim/faults`, { method: "DELETE" })).json).toEqual({ removed: 1 });
    } finally {
      await s.stop();
    }
  });

  it("SIGTERM with an open watch: the watch body ends cleanly and the process exits 0", async () => {
    const s = await start([]);
    const w = await openStream(`${s.url}/api/v1/namespaces/default/configmaps?watch=true&timeoutSeconds=600`);
    expect(w.status).toBe(200);
    const code = await s.stop("SIGTERM");
    expect(code).toBe(0);
    expect(await w.ended).toBe(true);
    expect(await w.nextLine()).toBeUndefined();
  });

  it("--port <p> binds exactly that port on 127.0.0.1", async () => {
    const probe = createServer();
    await new Promise<void>((r) => probe.listen(0, "127.0.0.1", () => r()));
    const port = (probe.address() as AddressInfo).port;
    await new Promise<void>((r) => probe.close(() => r()));
    const s = await start(["--port", String(port)]);
    try {
      expect(s.firstLine).toBe(`listening on http://127.0.0.1:${port}\n`);
      expect((await fetchRaw(`${s.url}/readyz`)).text).toBe("ok");
    } finally {
      expect(await s.stop("SIGINT")).toBe(0);
    }
  });

  it("--seed registers the custom resources of CustomResourceDefinitions and serves their objects", async () => {
    const dir = mkdtempSync(join(tmpdir(), "apiserver-crd-"));
    const seed = join(dir, "seed.yaml");
    writeFileSync(
      seed,
      [
        "apiVersion: apiextensions.k8s.io/v1",
        "kind: CustomResourceDefinition",
        "metadata: {name: widgets.example.com}",
        "spec:",
        "  group: example.com",
        "  scope: Namespaced",
        "  names: {plural: widgets, singular: widget, kind: Widget, shortNames: [wg]}",
        "  versions: [{name: v1, served: true, storage: true}]",
        "---",
        "apiVersion: example.com/v1",
        "kind: Widget",
        "metadata: {name: w1}",
        "spec: {size: 3}",
        "",
      ].join("\n"),
    );
    const s = await start(["--seed", seed]);
    try {
      const rl = (await fetchRaw(`${s.url}/apis/example.com/v1`)).json;
      expect(rl).toMatchObject({
        kind: "APIResourceList",
        groupVersion: "example.com/v1",
        resources: [{ name: "widgets", kind: "Widget", namespaced: true, shortNames: ["wg"] }],
      });
      const list = (await fetchRaw(`${s.url}/apis/example.com/v1/namespaces/default/widgets`)).json;
      expect(list).toMatchObject({
        kind: "WidgetList",
        items: [{ apiVersion: "example.com/v1", kind: "Widget", metadata: { name: "w1" }, spec: { size: 3 } }],
      });
    } finally {
      expect(await s.stop()).toBe(0);
    }
  });

  it("engine faults from --fault at start; --http-log and --audit-log write one JSON line per request; /metrics", async () => {
    const dir = mkdtempSync(join(tmpdir(), "apiserver-logs-"));
    const auditFile = join(dir, "audit.jsonl");
    const s = await start([
      "--fault",
      '{"type":"bookmarks","mode":"off"}',
      "--fault",
      '{"type":"latency","ms":1,"verbs":["get"]}',
      "--fault",
      '{"type":"stall-watchers","userAgent":"never-reads","future":true}',
      "--http-log",
      "--audit-log",
      auditFile,
    ]);
    try {
      expect((await fetchRaw(`${s.url}/_sim/engine-faults`)).json).toEqual({
        latency: [{ id: 1, ms: 1, verbs: ["get"] }],
        bookmarks: "off",
      });
      const r = await fetchRaw(`${s.url}/api/v1/namespaces/default/configmaps`, {
        headers: { "user-agent": "main-test/1" },
      });
      expect(r.status).toBe(200);
      const metrics = (await fetchRaw(`${s.url}/metrics`)).text;
      expect(metrics).toMatch(
        /^apiserver_request_total\{verb="LIST",group="",version="v1",resource="configmaps",code="200",served_from="cache",user_agent="main-test\/1"\} 1$/m,
      );
    } finally {
      expect(await s.stop()).toBe(0);
    }
    const audit = readFileSync(auditFile, "utf8")
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l));
    expect(audit).toContainEqual(
      expect.objectContaining({
        kind: "Event",
        apiVersion: "audit.k8s.io/v1",
        verb: "list",
        userAgent: "main-test/1",
        responseStatus: { metadata: {}, code: 200 },
      }),
    );
    const httplog = s
      .stderr()
      .split("\n")
      .filter((l) => l.startsWith("{"))
      .map((l) => JSON.parse(l));
    expect(httplog).toContainEqual(
      expect.objectContaining({ verb: "list", code: 200, userAgent: "main-test/1", method: "GET" }),
    );
  });

  it("the package bin (bin/sim-apiserver.mjs) runs dist/main.js, and says to build first when dist/ is missing", () => {
    const manifest = JSON.parse(readFileSync(join(pkg, "package.json"), "utf8")) as { bin: Record<string, string> };
    const shim = join(pkg, manifest.bin["sim-apiserver"]!);
    const help = execFileSync(process.execPath, [shim, "--help"], { encoding: "utf8" });
    expect(help).toMatch(/^Usage: pnpm apiserver \[flags\]/);
    // The same shim in a package directory that was never built.
    const unbuilt = mkdtempSync(join(tmpdir(), "apiserver-unbuilt-"));
    mkdirSync(join(unbuilt, "bin"));
    copyFileSync(shim, join(unbuilt, "bin", "sim-apiserver.mjs"));
    let failed: { status: number; stderr: string } | undefined;
    try {
      execFileSync(process.execPath, [join(unbuilt, "bin", "sim-apiserver.mjs"), "--help"], {
        encoding: "utf8",
        stdio: ["ignore", "pipe", "pipe"],
      });
    } catch (e) {
      failed = e as { status: number; stderr: string };
    }
    expect(failed?.status).toBe(1);
    expect(failed?.stderr).toBe(
      `sim-apiserver: ${join(unbuilt, "dist", "main.js")} is missing: the package is not built (run \`pnpm build\` in the informer-ts checkout first)\n`,
    );
  });

  it("--help and -h print the usage on stdout and exit 0, without starting a server", () => {
    for (const flag of ["--help", "-h"]) {
      const run = runToExit(["--port", "0", flag]);
      expect(run.code).toBe(0);
      expect(run.stdout).toMatch(/^Usage: pnpm apiserver \[flags\]/);
      expect(run.stdout).not.toMatch(/^listening on http/m);
      for (const f of [
        "--port",
        "--kubeconfig-out",
        "--seed",
        "--tls",
        "--token",
        "--fault",
        "--kube-version",
        "--help",
      ]) {
        expect(run.stdout).toContain(f);
      }
      expect(run.stdout).toMatch(/Environment: none is read/);
      expect(run.stdout).toMatch(/Exit status: 0 after SIGINT\/SIGTERM, 2 /);
    }
  });

  it("--kube-version with an unknown release exits 2 naming the flag, the value and the known releases", () => {
    const run = runToExit(["--kube-version", "1.29"]);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain(
      'apiserver: --kube-version: unknown kube version "1.29": expected one of 1.22, 1.28, 1.31, 1.33, 1.34',
    );
    expect(run.stderr).toContain("pnpm apiserver --help");
    expect(run.stdout).toBe("");
  });

  it("an unknown flag exits 2 naming it and the closest known flag", () => {
    const run = runToExit(["--kubeconfig", "x"]);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain("apiserver: unknown option --kubeconfig; did you mean --kubeconfig-out?");
    expect(run.stderr).toContain("pnpm apiserver --help");
    const far = runToExit(["--frobnicate"]);
    expect(far.code).toBe(2);
    expect(far.stderr).toMatch(/^apiserver: unknown option --frobnicate\n/);
    const missing = runToExit(["--port"]);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain("apiserver: option --port needs a value");
  });

  it("--port 0 says on stderr that no kubeconfig was written and how kubectl reaches the server", async () => {
    const s = await start(["--port", "0"]);
    try {
      const err = await s.stderrMatching(/try: .*\n/);
      expect(err).toContain("apiserver: no kubeconfig written (add --kubeconfig-out <file> to get one)");
      expect(err).toContain(`apiserver: try: kubectl --server ${s.url} get namespaces`);
    } finally {
      expect(await s.stop()).toBe(0);
    }
    const tls = await start(["--tls", "--token", "abc"]);
    try {
      const err = await tls.stderrMatching(/try: .*\n/);
      expect(err).toContain(`try: kubectl --server ${tls.url} --insecure-skip-tls-verify --token abc get namespaces`);
    } finally {
      expect(await tls.stop()).toBe(0);
    }
  });

  it("--kubeconfig-out says where the kubeconfig was written (absolute path) and how to use it", async () => {
    const dir = mkdtempSync(join(tmpdir(), "apiserver-kc-hint-"));
    const kc = join(dir, "kubeconfig");
    const s = await start(["--kubeconfig-out", kc]);
    try {
      const err = await s.stderrMatching(/try: .*\n/);
      expect(err).toContain(`apiserver: kubeconfig written to ${kc}\n`);
      expect(err).toContain(`apiserver: try: kubectl --kubeconfig ${kc} get namespaces`);
      expect(parse(readFileSync(kc, "utf8")).clusters[0].cluster.server).toBe(s.url);
    } finally {
      expect(await s.stop()).toBe(0);
    }
  });

  it("bad flags and bad seed files exit 2 with a message naming the problem", () => {
    const bad = runToExit(["--port", "nope"]);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('--port: expected a non-negative integer, got "nope"');
    const dir = mkdtempSync(join(tmpdir(), "apiserver-badseed-"));
    const seed = join(dir, "s.json");
    writeFileSync(seed, '[{"apiVersion":"v1","kind":"Gizmo","metadata":{"name":"g"}}]');
    const badSeed = runToExit(["--seed", seed]);
    expect(badSeed.code).toBe(2);
    expect(badSeed.stderr).toContain("seed object 1 (v1 Gizmo /g): kind is not served");
    const missing = join(dir, "missing.yaml");
    const missingSeed = runToExit(["--seed", missing]);
    expect(missingSeed.code).toBe(2);
    expect(missingSeed.stderr).toBe(`apiserver: --seed: cannot read ${missing}: ENOENT: no such file or directory\n`);
    writeFileSync(join(dir, "bad.yaml"), "kind: ConfigMap\n");
    const unparsable = runToExit(["--seed", join(dir, "bad.yaml")]);
    expect(unparsable.code).toBe(2);
    expect(unparsable.stderr).toBe(`apiserver: --seed: ${join(dir, "bad.yaml")}#1: object without kind/apiVersion\n`);
    const badFault = runToExit(["--fault", '{"type":"stall-watchers","ids":"x"}']);
    expect(badFault.code).toBe(2);
    expect(badFault.stderr).toContain("--fault #1: stall-watchers: ids must be an array of watcher ids (integers)");
    const unknown = runToExit([
      "--fault",
      '{"type":"drop-watches"}',
      "--fault",
      '{"type":"reinit","resource":"gizmos"}',
    ]);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain("--fault #2: the server could not find the requested resource (gizmos)");
    const badCrd = join(dir, "crd.json");
    writeFileSync(
      badCrd,
      '[{"apiVersion":"apiextensions.k8s.io/v1","kind":"CustomResourceDefinition","metadata":{"name":"x"},"spec":{"group":"g.io","names":{"plural":"xs"}}}]',
    );
    const crd = runToExit(["--seed", badCrd]);
    expect(crd.code).toBe(2);
    expect(crd.stderr).toContain(
      'seed object 1 (apiextensions.k8s.io/v1 CustomResourceDefinition /x): CustomResourceDefinition.apiextensions.k8s.io "x" is invalid: [metadata.name: Invalid value: "x": must be spec.names.plural+"."+spec.group',
    );
    expect(crd.stderr).toContain("spec.names.kind: Required value]");
  });
});
