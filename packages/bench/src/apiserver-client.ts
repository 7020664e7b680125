// The apiserver benchmark's HTTP client, run as a child process (`node apiserver-client.js` with an IPC channel):
// it opens raw HTTP watches and counts the lines it receives, and runs LISTs (time to last byte, bytes). Keeping it
// out of the server's process keeps its sockets and buffers out of the heap being measured, and its CPU out of the
// server's event loop (both processes still share the machine's cores). It imports node:http only, so the child
// stays small. The parent's side is `Client` in apiserver.ts; the protocol is the types below.
import { Agent, type ClientRequest, get, type RequestOptions, request } from "node:http";
import { fileURLToPath } from "node:url";

/** What the parent asks; each request gets exactly one reply, in order. */
export type ClientRequestMsg =
  /** Open `count` more watches on `url` (`concurrency` connects in flight), over `localAddresses` source IPs. */
  | {
      readonly cmd: "open";
      readonly url: string;
      readonly count: number;
      readonly concurrency: number;
      readonly localAddresses: number;
    }
  /** Report the lines (events) received so far. */
  | { readonly cmd: "count" }
  /** GET `url` (following `metadata.continue` when `pageSize` > 0), time to last byte. */
  | { readonly cmd: "list"; readonly url: string; readonly pageSize: number }
  /** Destroy every open watch. */
  | { readonly cmd: "close" }
  | { readonly cmd: "exit" };

/** The outcome of a `list` request. */
export interface ListOutcome {
  readonly ms?: number;
  readonly bytes?: number;
  readonly pages?: number;
  readonly error?: string;
}

/** What the child replies (`ready` once at start). */
export type ClientReplyMsg =
  | { readonly cmd: "ready" }
  | {
      readonly cmd: "opened";
      readonly opened: number;
      readonly failures: number;
      readonly live: number;
      readonly errors: Record<string, number>;
    }
  | {
      readonly cmd: "count";
      readonly events: number;
      readonly live: number;
      readonly failures: number;
      readonly errors: Record<string, number>;
    }
  | { readonly cmd: "list"; readonly result: ListOutcome }
  | { readonly cmd: "closed" };

const agent = new Agent({ keepAlive: false, maxSockets: Number.POSITIVE_INFINITY });
const live = new Set<ClientRequest>();
let events = 0;
let opened = 0;
let failures = 0;
let nextLocal = 0;
const errors: Record<string, number> = {};

function fail(code: string): void {
  failures++;
  errors[code] = (errors[code] ?? 0) + 1;
}

const errorCode = (e: Error): string => (e as NodeJS.ErrnoException).code ?? e.message;

/** Opens one watch; resolves once it is answered (200: held open and counted) or failed. */
function openOne(url: string, localAddresses: number): Promise<void> {
  return new Promise((resolve) => {
    const opts: RequestOptions = { agent };
    if (localAddresses > 1) opts.localAddress = `127.0.0.${1 + (nextLocal++ % localAddresses)}`;
    let done = false;
    const req = request(url, opts, (res) => {
      done = true;
      if (res.statusCode !== 200) {
        fail(`HTTP ${res.statusCode}`);
        res.resume();
        live.delete(req);
        resolve();
        return;
      }
      opened++;
      res.on("data", (c: Buffer) => {
        for (let i = c.indexOf(10); i !== -1; i = c.indexOf(10, i + 1)) events++;
      });
      res.on("error", () => {});
      res.on("close", () => live.delete(req));
      resolve();
    });
    req.on("error", (e) => {
      live.delete(req);
      if (!done) {
        done = true;
        fail(errorCode(e));
        resolve();
      }
    });
    live.add(req);
    req.end();
  });
}

/** GETs `url`, following `metadata.continue` (read from the head of the body: metadata precedes items). */
function getAll(url: string, pageSize: number): Promise<ListOutcome> {
  return new Promise((resolve) => {
    const start = process.hrtime.bigint();
    let bytes = 0;
    let pages = 0;
    const one = (u: string): void => {
      get(u, { agent }, (res) => {
        let head = "";
        res.on("data", (c: Buffer) => {
          bytes += c.length;
          if (head.length < 4096) head += c.toString("utf8", 0, Math.min(c.length, 4096));
        });
        res.on("end", () => {
          pages++;
          if (res.statusCode !== 200) {
            resolve({ error: `HTTP ${res.statusCode}: ${head.slice(0, 300)}` });
            return;
          }
          const m = pageSize > 0 ? /"continue":"([^"]*)"/.exec(head) : null;
          if (m?.[1] !== undefined && m[1] !== "") {
            one(`${url.split("?")[0]}?limit=${pageSize}&continue=${encodeURIComponent(m[1])}`);
            return;
          }
          resolve({ ms: Number(process.hrtime.bigint() - start) / 1e6, bytes, pages });
        });
      }).on("error", (e) => resolve({ error: errorCode(e) }));
    };
    one(url);
  });
}

function send(msg: ClientReplyMsg): void {
  process.send?.(msg);
}

async function handle(m: ClientRequestMsg): Promise<void> {
  switch (m.cmd) {
    case "open": {
      const before = opened;
      const failedBefore = failures;
      let next = 0;
      const worker = async () => {
        while (next < m.count) {
          next++;
          await openOne(m.url, m.localAddresses);
        }
      };
      await Promise.all(Array.from({ length: m.concurrency }, worker));
      send({ cmd: "opened", opened: opened - before, failures: failures - failedBefore, live: live.size, errors });
      return;
    }
    case "count":
      send({ cmd: "count", events, live: live.size, failures, errors });
      return;
    case "list":
      send({ cmd: "list", result: await getAll(m.url, m.pageSize) });
      return;
    case "close":
      for (const r of live) r.destroy();
      live.clear();
      send({ cmd: "closed" });
      return;
    case "exit":
      process.exit(0);
  }
}

// Child-process entry only (the parent imports nothing but types from this module).
if (process.send !== undefined && process.argv[1] === fileURLToPath(import.meta.url)) {
  process.on("message", (m: ClientRequestMsg) => void handle(m));
  send({ cmd: "ready" });
}
