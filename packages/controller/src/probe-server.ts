import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

/** One check of `/readyz` or `/healthz`: `undefined` when fine, else why not. (A synchronous {@link HealthChecker}.) */
export type ProbeCheck = () => string | undefined;

/** What a {@link HealthChecker} returns: nothing when healthy; a reason (string) or an `Error` when not. */
// biome-ignore lint/suspicious/noConfusingVoidType: `void` lets `() => {}` and `async () => {}` be checks.
export type HealthCheckResult = string | Error | undefined | void;

/**
 * A health or readiness check (controller-runtime's `healthz.Checker`): called with the probe's HTTP request for every
 * `GET /healthz` (or `/readyz`, or its own sub-path). It passes when it returns (or resolves to) nothing; it fails
 * with the reason when it returns a string or an `Error`, or throws or rejects. Keep it quick: the probe answers once
 * every check has settled.
 */
export type HealthChecker = (request: IncomingMessage) => HealthCheckResult | Promise<HealthCheckResult>;

/** What {@link ProbeServer} serves. */
export interface ProbeServerOptions {
  /** TCP port; 0 picks a free one (see {@link ProbeServer.address}). */
  readonly port: number;
  /** Interface to bind. Default `127.0.0.1` (loopback): expose it deliberately, e.g. `0.0.0.0` in a pod. */
  readonly host?: string;
  /** The checks of `/healthz`, served in this order (a {@link ProbeCheck} is one). */
  readonly healthz: Readonly<Record<string, HealthChecker>>;
  /** The checks of `/readyz`. */
  readonly readyz: Readonly<Record<string, HealthChecker>>;
  /** The Prometheus text of `/metrics`, with its content type; absent → 404. */
  readonly metrics?: () => Promise<{ body: string; contentType: string }>;
}

/**
 * The manager's HTTP endpoint (controller-runtime's health probe and metrics servers on one `node:http` server):
 * `GET /healthz` and `GET /readyz` run their checks (concurrently) and answer `200 ok` when every check passes and
 * `503` listing every check (`[+]name ok`, `[-]name failed: reason`) otherwise; `?verbose` lists every check on
 * success too, and `?exclude=<name>` (repeatable) skips a check (`[+]name excluded: ok`; an exclusion matching no
 * check is a `warn:` line), as controller-runtime and kube-apiserver do; `/healthz/<name>` and `/readyz/<name>` run one
 * check. `GET /metrics` serves the registry. Anything else is 404; other methods 405. A failing registry is a 500 with
 * its message, never a crash.
 */
export class ProbeServer {
  private readonly server: Server;
  private listening = false;

  constructor(private readonly options: ProbeServerOptions) {
    if (!Number.isInteger(options.port) || options.port < 0 || options.port > 65535) {
      throw new RangeError(`probe server: port must be an integer in [0, 65535], got ${options.port}`);
    }
    this.server = createServer((req, res) => {
      this.handle(req, res).catch((err: unknown) => {
        if (!res.headersSent) res.writeHead(500, { "content-type": "text/plain; charset=utf-8" });
        res.end(`internal error: ${err instanceof Error ? err.message : String(err)}\n`);
      });
    });
  }

  /** Starts listening; resolves with the base URL (`http://127.0.0.1:<port>`). */
  async start(): Promise<string> {
    await new Promise<void>((resolve, reject) => {
      this.server.once("error", reject);
      this.server.listen(this.options.port, this.options.host ?? "127.0.0.1", () => {
        this.server.off("error", reject);
        resolve();
      });
    });
    this.listening = true;
    const a = this.server.address() as AddressInfo;
    const host = a.family === "IPv6" ? `[${a.address}]` : a.address;
    return `http://${host}:${a.port}`;
  }

  /** The bound address, once started. */
  address(): AddressInfo | undefined {
    return this.listening ? (this.server.address() as AddressInfo) : undefined;
  }

  /** Stops listening and closes every connection; resolves once the server is closed. */
  async close(): Promise<void> {
    if (!this.listening) return;
    this.listening = false;
    const closed = new Promise<void>((resolve) => this.server.close(() => resolve()));
    this.server.closeAllConnections();
    await closed;
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? "/", "http://probe");
    if (req.method !== "GET" && req.method !== "HEAD") {
      res.writeHead(405, { "content-type": "text/plain; charset=utf-8", allow: "GET, HEAD" });
      res.end("method not allowed\n");
      return;
    }
    const [, top, sub] = url.pathname.split("/");
    if ((top === "healthz" || top === "readyz") && url.pathname.split("/").length <= 3) {
      const checks = top === "healthz" ? this.options.healthz : this.options.readyz;
      const all = Object.entries(checks);
      const one = sub !== undefined && sub !== "";
      const selected = one ? all.filter(([n]) => n === sub) : all;
      if (one && selected.length === 0) return text(res, 404, `no such check: ${sub}\n`);
      const excluded = new Set(one ? [] : url.searchParams.getAll("exclude"));
      const results = await Promise.all(
        selected.map(async ([name, check]): Promise<[string, string | undefined, boolean]> => {
          if (excluded.delete(name)) return [name, undefined, true];
          return [name, await runCheck(check, req), false];
        }),
      );
      const lines: string[] = [];
      let failed = false;
      for (const [name, reason, skipped] of results) {
        if (skipped) lines.push(`[+]${name} excluded: ok`);
        else if (reason === undefined) lines.push(`[+]${name} ok`);
        else {
          failed = true;
          lines.push(`[-]${name} failed: ${reason}`);
        }
      }
      if (excluded.size > 0) {
        lines.push(
          `warn: some health checks cannot be excluded: no matches for ${[...excluded].map((n) => JSON.stringify(n)).join(",")}`,
        );
      }
      if (failed) return text(res, 503, `${lines.join("\n")}\n${top} check failed\n`);
      return text(res, 200, url.searchParams.has("verbose") ? `${lines.join("\n")}\n${top} check passed\n` : "ok");
    }
    if (url.pathname === "/metrics" && this.options.metrics !== undefined) {
      const m = await this.options.metrics();
      res.writeHead(200, { "content-type": m.contentType });
      res.end(m.body);
      return;
    }
    text(res, 404, "not found\n");
  }
}

/** Runs one check: `undefined` when it passed, else the reason. Never throws. */
async function runCheck(check: HealthChecker, req: IncomingMessage): Promise<string | undefined> {
  try {
    const result = await check(req);
    if (result === undefined || result === null) return undefined;
    if (result instanceof Error) return result.message;
    return String(result);
  } catch (err) {
    return err instanceof Error ? err.message : String(err);
  }
}

function text(res: ServerResponse, code: number, body: string): void {
  res.writeHead(code, { "content-type": "text/plain; charset=utf-8", "x-content-type-options": "nosniff" });
  res.end(body);
}
