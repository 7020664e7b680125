import { type ChildProcess, spawn } from "node:child_process";
import { createServer, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import * as sim from "@informer-ts/sim-apiserver";
import { type BenchResult, type BenchRow, heapUsed } from "./report.js";

// ---------------------------------------------------------------------------------------------------------------
// The parts of @informer-ts/sim-apiserver this benchmark uses, typed locally so the file compiles whether or not the
// package index re-exports the HTTP face yet (it is resolved at run time).

interface HttpStats {
  readonly openWatches: number;
  readonly watchEvents: number;
}
interface SimHttpServerLike {
  start(): Promise<string>;
  close(): Promise<void>;
  readonly stats: HttpStats;
}
interface BackendLike {
  create(r: unknown, namespace: string, obj: unknown, ctx: unknown): Promise<unknown>;
  update(r: unknown, namespace: string, name: string, obj: unknown, ctx: unknown): Promise<unknown>;
  resources(): readonly unknown[];
}
interface HttpExports {
  readonly SimHttpServer: new (opts: { backend: BackendLike; log?: undefined }) => SimHttpServerLike;
  /** Builds the backend under test (the engine when wired, else the package's minimal in-memory backend). */
  readonly createBenchBackend?: () => BackendLike;
  readonly MemoryBackend?: new () => BackendLike;
}

function httpExports(): HttpExports {
  const m = sim as unknown as Partial<HttpExports>;
  if (m.SimHttpServer === undefined || (m.createBenchBackend === undefined && m.MemoryBackend === undefined)) {
    throw new Error(
      "apiserver-http bench: @informer-ts/sim-apiserver does not export SimHttpServer/MemoryBackend (wire src/http/index.ts into the package index)",
    );
  }
  return m as HttpExports;
}

// ---------------------------------------------------------------------------------------------------------------
// Client side: a child process (no dependencies) that opens N raw HTTP watches and counts received lines, so the
// client's sockets and buffers stay out of the heap being measured.

const CLIENT = `
const http = require("node:http");
const agent = new http.Agent({ keepAlive: false, maxSockets: Infinity });
const live = new Set();
let events = 0, failures = 0;
function openOne(url) {
  return new Promise((resolve) => {
    const req = http.request(url, { agent }, (res) => {
      res.on("data", (c) => { for (let i = 0; i < c.length; i++) if (c[i] === 10) events++; });
      res.on("error", () => {});
      resolve();
    });
    req.on("error", () => { failures++; live.delete(req); resolve(); });
    live.add(req);
    req.end();
  });
}
process.on("message", async (m) => {
  if (m.cmd === "open") {
    let next = 0;
    const worker = async () => { while (next < m.count) { next++; await openOne(m.url); } };
    await Promise.all(Array.from({ length: m.concurrency }, worker));
    process.send({ cmd: "opened", opened: live.size, failures });
  } else if (m.cmd === "count") {
    process.send({ cmd: "count", events, failures });
  } else if (m.cmd === "close") {
    for (const r of live) r.destroy();
    live.clear();
    process.send({ cmd: "closed" });
  } else if (m.cmd === "exit") {
    process.exit(0);
  }
});
process.send({ cmd: "ready" });
`;

interface ClientMsg {
  readonly cmd: string;
  readonly opened?: number;
  readonly failures?: number;
  readonly events?: number;
}

class Client {
  private readonly child: ChildProcess;
  private readonly waiting: Array<{ cmd: string; resolve: (m: ClientMsg) => void }> = [];

  constructor() {
    this.child = spawn(process.execPath, ["-e", CLIENT], { stdio: ["ignore", "inherit", "inherit", "ipc"] });
    this.child.on("message", (m: ClientMsg) => {
      const i = this.waiting.findIndex((w) => w.cmd === m.cmd);
      if (i >= 0) this.waiting.splice(i, 1)[0]!.resolve(m);
    });
  }

  private ask(msg: Record<string, unknown>, reply: string): Promise<ClientMsg> {
    return new Promise((resolve) => {
      this.waiting.push({ cmd: reply, resolve });
      if (msg.cmd !== "") this.child.send(msg);
    });
  }

  ready(): Promise<ClientMsg> {
    return this.ask({ cmd: "" }, "ready");
  }
  open(url: string, count: number, concurrency = 200): Promise<ClientMsg> {
    return this.ask({ cmd: "open", url, count, concurrency }, "opened");
  }
  count(): Promise<ClientMsg> {
    return this.ask({ cmd: "count" }, "count");
  }
  close(): Promise<ClientMsg> {
    return this.ask({ cmd: "close" }, "closed");
  }
  exit(): void {
    this.child.send({ cmd: "exit" });
  }
}

async function until(cond: () => boolean | Promise<boolean>, timeoutMs: number): Promise<boolean> {
  const start = performance.now();
  while (!(await cond())) {
    if (performance.now() - start > timeoutMs) return false;
    await new Promise((r) => setTimeout(r, 20));
  }
  return true;
}

/** The naive baseline: a bare node:http server holding each request open as a chunked 200 (no engine, no encoding). */
async function bareServer(): Promise<{ url: string; open: () => number; close: () => Promise<void> }> {
  const held = new Set<ServerResponse>();
  const srv = createServer((_req, res) => {
    res.writeHead(200, { "Content-Type": "application/json" });
    res.flushHeaders();
    held.add(res);
    res.on("close", () => held.delete(res));
  });
  srv.requestTimeout = 0;
  await new Promise<void>((r) => srv.listen(0, "127.0.0.1", r));
  const port = (srv.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}/`,
    open: () => held.size,
    close: () =>
      new Promise<void>((r) => {
        for (const res of held) res.destroy();
        srv.close(() => r());
      }),
  };
}

const CM_PATH = "/api/v1/namespaces/default/configmaps";
const CONFIGMAPS = {
  group: "",
  version: "v1",
  resource: "configmaps",
  kind: "ConfigMap",
  singularName: "configmap",
  namespaced: true,
  verbs: ["create", "delete", "get", "list", "patch", "update", "watch"],
};
const CTX = { signal: new AbortController().signal, user: "bench", userAgent: "bench" };

/**
 * Concurrent HTTP watches held by the simulated apiserver (heap per idle watcher, against a bare node:http server
 * holding the same number of chunked responses), and events/s delivered to 1k HTTP watchers. Server in this
 * process, clients in a child process.
 */
export async function runApiserverHttp(): Promise<BenchResult> {
  const { SimHttpServer, createBenchBackend, MemoryBackend } = httpExports();
  const makeBackend = createBenchBackend ?? (() => new MemoryBackend!());
  const rows: BenchRow[] = [];
  const meta: Record<string, string | number | boolean> = { node: process.version };
  const fdLimit = 20_000;
  const counts = [10_000, Math.min(18_000, fdLimit - 1500)];

  for (const n of counts) {
    // Baseline first: bare server, same client, same N.
    const bare = await bareServer();
    const bc = new Client();
    await bc.ready();
    const b0 = heapUsed();
    await bc.open(bare.url, n);
    await until(() => bare.open() >= n, 60_000);
    const bPer = (heapUsed() - b0) / n;
    await bc.close();
    bc.exit();
    await bare.close();

    const backend = makeBackend();
    const server = new SimHttpServer({ backend });
    const url = await server.start();
    const client = new Client();
    await client.ready();
    const h0 = heapUsed();
    const t0 = performance.now();
    const opened = await client.open(`${url}${CM_PATH}?watch=true&resourceVersion=1&allowWatchBookmarks=true`, n);
    const ok = await until(() => server.stats.openWatches >= n, 60_000);
    const openMs = performance.now() - t0;
    const per = (heapUsed() - h0) / n;
    rows.push({
      case: `heap per idle HTTP watch (${n.toLocaleString("en-US")} held)`,
      value: per,
      unit: "B/watch",
      baseline: bPer,
      ratioLabel: "ours/bare node:http",
      ratio: per / bPer,
      goal: "≤ 4 KiB",
      met: ok && per <= 4096,
      note: ok
        ? `opened in ${(openMs / 1000).toFixed(1)} s`
        : `only ${server.stats.openWatches} opened (${opened.failures} failures)`,
    });
    await client.close();
    client.exit();
    await until(() => server.stats.openWatches === 0, 30_000);
    await server.close();
  }

  // Throughput: 1k watchers, W writes; every write is one event per watcher.
  const watchers = 1000;
  const writes = 2000;
  const backend = makeBackend();
  const server = new SimHttpServer({ backend });
  const url = await server.start();
  const client = new Client();
  await client.ready();
  const r0 = backend.resources()[0] ?? CONFIGMAPS;
  await backend.create(
    r0,
    "default",
    { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "hot", namespace: "default" }, data: { i: "0" } },
    CTX,
  );
  await client.open(`${url}${CM_PATH}?watch=true&resourceVersion=1`, watchers);
  await until(() => server.stats.openWatches >= watchers, 60_000);
  const before = (await client.count()).events ?? 0;
  const t0 = performance.now();
  for (let i = 1; i <= writes; i++) {
    await backend.update(
      r0,
      "default",
      "hot",
      { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "hot", namespace: "default" }, data: { i: String(i) } },
      CTX,
    );
    if (i % 50 === 0) await new Promise((r) => setImmediate(r));
  }
  const expected = before + watchers * writes;
  let received = before;
  await until(async () => {
    received = (await client.count()).events ?? 0;
    return received >= expected;
  }, 60_000);
  const secs = (performance.now() - t0) / 1000;
  const delivered = received - before;
  rows.push({
    case: `events delivered to ${watchers} HTTP watchers (${writes} writes)`,
    value: delivered / secs,
    unit: "events/s",
    note: `${delivered.toLocaleString("en-US")} of ${(watchers * writes).toLocaleString("en-US")} in ${secs.toFixed(1)} s`,
  });
  await client.close();
  client.exit();
  await server.close();
  meta.backend = createBenchBackend !== undefined ? "engine" : "MemoryBackend";
  return { name: "apiserver-http", rows, meta };
}
