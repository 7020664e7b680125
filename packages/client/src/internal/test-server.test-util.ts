// Small loopback HTTP(S) servers for client tests (127.0.0.1, ephemeral port).
import { createServer as createHttpServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import { createServer as createHttpsServer, type ServerOptions } from "node:https";
import type { AddressInfo, Socket } from "node:net";

export interface RecordedRequest {
  readonly method: string;
  readonly url: string;
  readonly headers: IncomingMessage["headers"];
  readonly body: string;
}

export type Handler = (req: IncomingMessage, res: ServerResponse, body: string) => void | Promise<void>;

export interface TestServer {
  readonly url: string;
  readonly requests: RecordedRequest[];
  /** Open sockets right now. */
  readonly sockets: Set<Socket>;
  close(): Promise<void>;
}

export async function startServer(handler: Handler, tls?: ServerOptions): Promise<TestServer> {
  const requests: RecordedRequest[] = [];
  const sockets = new Set<Socket>();
  const listener = (req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const body = Buffer.concat(chunks).toString("utf8");
      requests.push({ method: req.method ?? "", url: req.url ?? "", headers: req.headers, body });
      Promise.resolve(handler(req, res, body)).catch((err: unknown) => {
        if (!res.headersSent) res.writeHead(599);
        res.end(String(err));
      });
    });
  };
  const server: Server = tls === undefined ? createHttpServer(listener) : createHttpsServer(tls, listener);
  const track = (s: Socket) => {
    sockets.add(s);
    s.on("close", () => sockets.delete(s));
  };
  server.on(tls === undefined ? "connection" : "secureConnection", track);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `${tls === undefined ? "http" : "https"}://127.0.0.1:${port}`,
    requests,
    sockets,
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}

export function sendJSON(res: ServerResponse, code: number, body: unknown, headers: Record<string, string> = {}): void {
  const text = JSON.stringify(body);
  res.writeHead(code, { "content-type": "application/json", "content-length": Buffer.byteLength(text), ...headers });
  res.end(text);
}

/** Lets I/O callbacks and promise continuations run (no timers involved). */
export function tick(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}

/** Spins the event loop (setImmediate turns, never timers) until `cond` holds; fails after `maxTurns`. */
export async function until(cond: () => boolean, what: string, maxTurns = 200_000): Promise<void> {
  for (let i = 0; i < maxTurns; i++) {
    if (cond()) return;
    await tick();
  }
  throw new Error(`condition not reached: ${what}`);
}
