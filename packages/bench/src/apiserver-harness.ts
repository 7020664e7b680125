// The apiserver bench's harness: formatting and polling helpers, the file-descriptor limit, the child-process
// client that opens watches and runs LISTs, a bare node:http baseline server, and the simulator on a loopback port.
import { type ChildProcess, spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import { createServer, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { fileURLToPath } from "node:url";
import { EngineBackend, SimApiServer, SimHttpServer } from "@informer-ts/sim-apiserver";
import type { ClientReplyMsg, ClientRequestMsg, ListOutcome } from "./apiserver-client.js";
import { MiB } from "./util.js";

/** File descriptors a process keeps for itself beyond its sockets (stdio, epoll, IPC, pipes, the bench files). */
export const FD_RESERVE = 256;

export const fmtInt = (n: number) => Math.round(n).toLocaleString("en-US");
export const mib = (bytes: number) => `${(bytes / MiB).toFixed(1)} MiB`;

export function elapsedMs(start: bigint): number {
  return Number(process.hrtime.bigint() - start) / 1e6;
}

export const tick = () => new Promise<void>((resolve) => setImmediate(resolve));
export const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** Polls `cond` (every `everyMs`, or every event-loop turn when 0) until it holds or `timeoutMs` passed. */
export async function until(cond: () => boolean | Promise<boolean>, timeoutMs: number, everyMs = 20): Promise<boolean> {
  const start = performance.now();
  while (!(await cond())) {
    if (performance.now() - start > timeoutMs) return false;
    await (everyMs === 0 ? tick() : sleep(everyMs));
  }
  return true;
}

/** The soft RLIMIT_NOFILE of this process (Linux `/proc/self/limits`); undefined where it cannot be read. */
export function fdLimit(): number | undefined {
  try {
    const line = readFileSync("/proc/self/limits", "utf8")
      .split("\n")
      .find((l) => l.startsWith("Max open files"));
    const soft = line?.split(/\s{2,}/)[1];
    const n = Number(soft);
    return Number.isFinite(n) ? n : undefined;
  } catch {
    return undefined;
  }
}

// ---------------------------------------------------------------------------------------------------------------
// Client side: a child process (apiserver-client.ts) opens raw HTTP watches and counts the lines it receives, and
// runs LISTs. Keeping it out of this process keeps its sockets and buffers out of the heap being measured, and its
// CPU out of this event loop (both processes still share the machine's cores).

const CLIENT_JS = fileURLToPath(new URL("./apiserver-client.js", import.meta.url));

type Reply<C extends ClientReplyMsg["cmd"]> = Extract<ClientReplyMsg, { cmd: C }>;

/** The watching/listing client process. Requests are answered in order, one reply per request. */
export class Client {
  private readonly child: ChildProcess;
  private readonly waiting: Array<{ cmd: string; resolve: (m: ClientReplyMsg | undefined) => void }> = [];
  private readonly readyP: Promise<unknown>;
  private failure: string | undefined;

  constructor() {
    this.child = spawn(process.execPath, [CLIENT_JS], { stdio: ["ignore", "inherit", "inherit", "ipc"] });
    this.readyP = this.expect("ready");
    this.child.on("message", (m: ClientReplyMsg) => {
      const i = this.waiting.findIndex((w) => w.cmd === m.cmd);
      if (i >= 0) this.waiting.splice(i, 1)[0]!.resolve(m);
    });
    // A client that dies (or cannot start) answers every pending and later request with an error instead of
    // leaving the benchmark waiting forever.
    const gone = (why: string) => {
      this.failure ??= `client process ${why}`;
      for (const w of this.waiting.splice(0)) w.resolve(undefined);
    };
    this.child.on("exit", (code, signal) => gone(`exited (${signal ?? code})`));
    this.child.on("error", (err) => gone(`failed: ${err.message}`));
  }

  /** The reply, or undefined once the child is gone (see `failure`). */
  private expect<C extends ClientReplyMsg["cmd"]>(reply: C): Promise<Reply<C> | undefined> {
    if (this.failure !== undefined) return Promise.resolve(undefined);
    return new Promise((resolve) =>
      this.waiting.push({ cmd: reply, resolve: (m) => resolve(m as Reply<C> | undefined) }),
    );
  }

  private ask<C extends ClientReplyMsg["cmd"]>(msg: ClientRequestMsg, reply: C): Promise<Reply<C> | undefined> {
    const p = this.expect(reply);
    if (this.failure === undefined) this.child.send(msg);
    return p;
  }

  private get gone(): Record<string, number> {
    return { [this.failure ?? "client process gone"]: 1 };
  }

  ready(): Promise<unknown> {
    return this.readyP;
  }
  /** Opens `count` more watches (`concurrency` connects in flight), spread over `localAddresses` source IPs. */
  async open(url: string, count: number, localAddresses = 1, concurrency = 200): Promise<Reply<"opened">> {
    const r = await this.ask({ cmd: "open", url, count, concurrency, localAddresses }, "opened");
    return r ?? { cmd: "opened", opened: 0, failures: 1, live: 0, errors: this.gone };
  }
  async count(): Promise<Reply<"count">> {
    return (
      (await this.ask({ cmd: "count" }, "count")) ?? {
        cmd: "count",
        events: 0,
        live: 0,
        failures: 1,
        errors: this.gone,
      }
    );
  }
  async list(url: string, pageSize = 0): Promise<ListOutcome> {
    const r = await this.ask({ cmd: "list", url, pageSize }, "list");
    return r?.result ?? { error: this.failure ?? "client process gone" };
  }
  async close(): Promise<void> {
    await this.ask({ cmd: "close" }, "closed");
  }
  exit(): void {
    if (this.failure === undefined) this.child.send({ cmd: "exit" } satisfies ClientRequestMsg);
  }
}

/** The naive baseline: a bare node:http server holding each request open as a chunked 200 (no engine, no encoding). */
export async function bareServer(): Promise<{ url: string; open: () => number; close: () => Promise<void> }> {
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

/** An engine with real time and no background compaction, plus its HTTP face on a free loopback port. */
export async function startSim(): Promise<{
  engine: SimApiServer;
  server: SimHttpServer;
  url: string;
  stop(): Promise<void>;
}> {
  const engine = new SimApiServer({ compactionIntervalMs: 0 });
  const server = new SimHttpServer({ backend: new EngineBackend(engine) });
  const url = await server.start();
  return {
    engine,
    server,
    url,
    async stop() {
      await server.close();
      engine.stop();
    },
  };
}

export const NS = "default";
export const WATCH_PATH = `/api/v1/namespaces/${NS}/configmaps`;
