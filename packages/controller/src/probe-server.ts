import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

/** One check of `/readyz` or `/healthz`: `undefined` when fine, else why not. */
export type ProbeCheck = () => string | undefined;

/** What {@link ProbeServer} serves. */
export interface ProbeServerOptions {
  /** TCP port; 0 picks a free one (see {@link ProbeServer.address}). */
  readonly port: number;
  /** Interface to bind. Default `127.0.0.1` (loopback): expose it deliberately, e.g. `0.0.0.0` in a pod. */
  readonly host?: string;
  readonly healthz: Readonly<Record<string, ProbeCheck>>;
  readonly readyz: Readonly<Record<string, ProbeCheck>>;
  /** The Prometheus text of `/metrics`, with its content type; absent → 404. */
  readonly metrics?: () => Promise<{ body: string; contentType: string }>;
}

/**
 * The manager's HTTP endpoint (controller-runtime's health probe and metrics servers on one `node:http` server):
 * `GET /healthz` and `GET /readyz` answer `200 ok` when every check passes and `503` listing the failed checks
 * (`[-]name failed: reason`) otherwise; `?verbose` lists every check, as kube-apiserver does; `/healthz/<name>` and
 * `/readyz/<name>` run one check. `GET /metrics` serves the registry. Anything else is 404; other methods 405. A
 * failing check or registry is a 500 with its message, never a crash.
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
      const selected =
        sub === undefined || sub === "" ? Object.entries(checks) : Object.entries(checks).filter(([n]) => n === sub);
      if (sub !== undefined && sub !== "" && selected.length === 0) return text(res, 404, `no such check: ${sub}\n`);
      const lines: string[] = [];
      let failed = false;
      for (const [name, check] of selected) {
        let reason: string | undefined;
        try {
          reason = check();
        } catch (err) {
          reason = err instanceof Error ? err.message : String(err);
        }
        if (reason === undefined) lines.push(`[+]${name} ok`);
        else {
          failed = true;
          lines.push(`[-]${name} failed: ${reason}`);
        }
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

function text(res: ServerResponse, code: number, body: string): void {
  res.writeHead(code, { "content-type": "text/plain; charset=utf-8", "x-content-type-options": "nosniff" });
  res.end(body);
}
