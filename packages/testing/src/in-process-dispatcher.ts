import { EventEmitter } from "node:events";
import type { IncomingMessage, ServerResponse } from "node:http";
import { Readable, Writable } from "node:stream";
import type { SimHttpServer } from "@informer-ts/sim-apiserver";
import { Dispatcher } from "undici";

/** One request in flight through an {@link InProcessDispatcher}, as {@link InProcessDispatcher.inflight} lists it. */
export interface InProcessExchange {
  readonly method: string;
  readonly path: string;
  /** True for `watch=true` requests (long-running: they stay open until either side ends them). */
  readonly watch: boolean;
  /** Bytes of response body delivered to the client so far. */
  readonly bytes: number;
  /** True while the client has paused reading (back-pressure reaches the server's watch writer). */
  readonly paused: boolean;
  /** True once the server began its response (status and headers sent): a watch is then established. */
  readonly started: boolean;
}

/** Options of {@link InProcessDispatcher}. */
export interface InProcessDispatcherOptions {
  /** The `Host` header the server sees when the request has none (default `sim.invalid`). */
  readonly host?: string;
}

/** A stand-in for the request's socket: what the simulator's HTTP face reads from `req.socket`. */
class InProcessSocket extends EventEmitter {
  bytesWritten = 0;
  destroyed = false;
  readonly remoteAddress = "127.0.0.1";
  readonly encrypted = false;

  constructor(private readonly onDestroy: (err?: Error) => void) {
    super();
  }

  destroy(err?: Error): this {
    if (this.destroyed) return this;
    this.destroyed = true;
    this.onDestroy(err);
    this.emit("close");
    return this;
  }

  setTimeout(): this {
    return this;
  }

  end(): this {
    return this;
  }
}

/**
 * Delivers a response to an undici handler, whichever handler API it implements: the controller API
 * (`onRequestStart` … `onResponseEnd`) or the legacy one (`onConnect` … `onComplete`), which `Dispatcher.request`
 * uses in undici 7.
 */
class HandlerBridge {
  paused = false;
  done = false;
  private resumeWaiters: (() => void)[] = [];
  private readonly controller: Dispatcher.DispatchController;

  constructor(
    private readonly handler: Dispatcher.DispatchHandler,
    private readonly onAbort: (reason: Error) => void,
  ) {
    const self = this;
    let reason: Error | null = null;
    this.controller = {
      get aborted() {
        return reason !== null;
      },
      get paused() {
        return self.paused;
      },
      get reason() {
        return reason;
      },
      abort(err: Error) {
        if (reason !== null) return;
        reason = err;
        self.abort(err);
      },
      pause() {
        self.paused = true;
      },
      resume() {
        self.resume();
      },
    };
  }

  get modern(): boolean {
    return typeof this.handler.onRequestStart === "function" || typeof this.handler.onResponseStart === "function";
  }

  start(): void {
    if (this.modern) this.handler.onRequestStart?.(this.controller, {});
    else this.handler.onConnect?.((err) => this.abort(err ?? new Error("request aborted")));
  }

  headers(status: number, statusText: string, headers: Record<string, string | string[]>): void {
    if (this.done) return;
    if (this.modern) {
      this.handler.onResponseStart?.(this.controller, status, headers, statusText);
      return;
    }
    const raw: Buffer[] = [];
    for (const [k, v] of Object.entries(headers)) {
      for (const one of Array.isArray(v) ? v : [v]) raw.push(Buffer.from(k, "latin1"), Buffer.from(one, "latin1"));
    }
    const more = this.handler.onHeaders?.(status, raw, () => this.resume(), statusText);
    if (more === false) this.paused = true;
  }

  data(chunk: Buffer): void {
    if (this.done) return;
    if (this.modern) {
      this.handler.onResponseData?.(this.controller, chunk);
      return;
    }
    if (this.handler.onData?.(chunk) === false) this.paused = true;
  }

  end(): void {
    if (this.done) return;
    this.done = true;
    if (this.modern) this.handler.onResponseEnd?.(this.controller, {});
    else this.handler.onComplete?.([]);
    this.releaseWaiters();
  }

  error(err: Error): void {
    if (this.done) return;
    this.done = true;
    if (this.modern) this.handler.onResponseError?.(this.controller, err);
    else this.handler.onError?.(err);
    this.releaseWaiters();
  }

  /** Resolves when the client is reading again (at once when it is not paused). */
  whenReading(cb: () => void): void {
    if (!this.paused || this.done) cb();
    else this.resumeWaiters.push(cb);
  }

  private resume(): void {
    this.paused = false;
    this.releaseWaiters();
  }

  private releaseWaiters(): void {
    const ws = this.resumeWaiters;
    this.resumeWaiters = [];
    for (const w of ws) w();
  }

  private abort(err: Error): void {
    if (this.done) return;
    this.onAbort(err);
    this.error(err);
  }
}

/** The `(req, res)` pair handed to the simulator's HTTP request listener. */
class Exchange implements InProcessExchange {
  readonly method: string;
  readonly path: string;
  readonly watch: boolean;
  bytes = 0;
  readonly req: Readable & { method: string; url: string; headers: Record<string, string | string[]>; socket: unknown };
  readonly res: Writable;
  readonly bridge: HandlerBridge;

  started = false;

  get paused(): boolean {
    return this.bridge.paused;
  }

  constructor(opts: Dispatcher.DispatchOptions, handler: Dispatcher.DispatchHandler, host: string, done: () => void) {
    this.method = (opts.method ?? "GET").toUpperCase();
    this.path = opts.path;
    this.watch = /[?&]watch=(true|1)(&|$)/.test(opts.path);
    const headers = normalizeHeaders(opts.headers);
    headers.host ??= host;
    const socket = new InProcessSocket((err) => {
      // The server dropped the connection: the client sees a reset, like a closed socket.
      if (!res.destroyed) res.destroy();
      const e = Object.assign(new Error(err?.message ?? "other side closed"), { code: "UND_ERR_SOCKET" });
      this.bridge.error(e);
      done();
    });
    const req = Object.assign(new Readable({ read() {} }), {
      method: this.method,
      url: opts.path,
      headers,
      socket,
      httpVersion: "1.1",
    });
    this.req = req;
    const exchange = this;
    let statusCode = 200;
    let statusMessage = "";
    let headersSent = false;
    const outHeaders: Record<string, string | string[]> = {};
    const sendHeaders = () => {
      if (headersSent) return;
      headersSent = true;
      this.started = true;
      this.bridge.headers(statusCode, statusMessage, outHeaders);
    };
    const res: Writable = new Writable({
      highWaterMark: 16 * 1024,
      write(chunk: Buffer, _enc, cb) {
        sendHeaders();
        exchange.bytes += chunk.length;
        socket.bytesWritten += chunk.length;
        exchange.bridge.data(chunk);
        exchange.bridge.whenReading(() => cb());
      },
      final(cb) {
        sendHeaders();
        exchange.bridge.end();
        done();
        cb();
      },
      destroy(err, cb) {
        if (!exchange.bridge.done) {
          exchange.bridge.error(
            Object.assign(new Error(err?.message ?? "other side closed"), { code: "UND_ERR_SOCKET" }),
          );
        }
        done();
        cb(null);
      },
    });
    Object.defineProperties(res, {
      statusCode: {
        get: () => statusCode,
        set: (v: number) => {
          statusCode = v;
        },
      },
      statusMessage: {
        get: () => statusMessage,
        set: (v: string) => {
          statusMessage = v;
        },
      },
      headersSent: { get: () => headersSent },
    });
    Object.assign(res, {
      setHeader(name: string, value: string | number | readonly string[]) {
        outHeaders[name.toLowerCase()] = Array.isArray(value) ? [...value] : String(value);
        return res;
      },
      getHeader(name: string) {
        return outHeaders[name.toLowerCase()];
      },
      hasHeader(name: string) {
        return outHeaders[name.toLowerCase()] !== undefined;
      },
      removeHeader(name: string) {
        delete outHeaders[name.toLowerCase()];
      },
      writeHead(code: number, a?: string | Record<string, string | number>, b?: Record<string, string | number>) {
        statusCode = code;
        const extra = typeof a === "string" ? b : a;
        if (typeof a === "string") statusMessage = a;
        for (const [k, v] of Object.entries(extra ?? {})) outHeaders[k.toLowerCase()] = String(v);
        sendHeaders();
        return res;
      },
      flushHeaders() {
        sendHeaders();
      },
    });
    this.res = res;
    this.bridge = new HandlerBridge(handler, () => {
      // The client aborted: the server sees its connection close.
      if (!res.destroyed) res.destroy();
      req.emit("aborted");
      done();
    });
  }
}

function normalizeHeaders(h: Dispatcher.DispatchOptions["headers"]): Record<string, string | string[]> {
  const out: Record<string, string | string[]> = {};
  const put = (k: string, v: unknown) => {
    if (v === undefined || v === null) return;
    const key = k.toLowerCase();
    const val = Array.isArray(v) ? v.map(String) : String(v);
    const prev = out[key];
    if (prev === undefined) out[key] = val;
    else out[key] = [...(Array.isArray(prev) ? prev : [prev]), ...(Array.isArray(val) ? val : [val])];
  };
  if (h === undefined || h === null) return out;
  if (Array.isArray(h)) {
    for (let i = 0; i + 1 < h.length; i += 2) put(String(h[i]), h[i + 1]);
    return out;
  }
  if (typeof (h as Iterable<unknown>)[Symbol.iterator] === "function") {
    for (const pair of h as Iterable<[string, unknown]>) put(pair[0], pair[1]);
    return out;
  }
  for (const [k, v] of Object.entries(h as Record<string, unknown>)) put(k, v);
  return out;
}

async function bodyBytes(body: Dispatcher.DispatchOptions["body"]): Promise<Buffer | undefined> {
  if (body === undefined || body === null) return undefined;
  if (typeof body === "string") return Buffer.from(body, "utf8");
  if (body instanceof Uint8Array) return Buffer.from(body.buffer, body.byteOffset, body.byteLength);
  if (typeof (body as AsyncIterable<unknown>)[Symbol.asyncIterator] === "function") {
    const parts: Buffer[] = [];
    for await (const c of body as AsyncIterable<Uint8Array | string>) {
      parts.push(typeof c === "string" ? Buffer.from(c, "utf8") : Buffer.from(c));
    }
    return Buffer.concat(parts);
  }
  throw new TypeError(`InProcessDispatcher: unsupported request body type ${typeof body}`);
}

/**
 * An undici `Dispatcher` that hands every request straight to a {@link SimHttpServer}'s request listener in the same
 * process, without sockets: pass it as `KubeClient`'s `dispatcher` option and every verb (watch streams, chunked
 * lists, aborts included) runs unchanged against the simulator. Nothing on the path uses real time, so with the
 * server on a `FakeClock` a run is a pure function of its inputs.
 *
 * The server is never started (no port is bound). The response body is delivered chunk by chunk as the server writes
 * it; when the client pauses reading, the server's writes stop completing, so its watch back-pressure and dispatch
 * budget behave as with a socket that is not read. A client abort closes the server's response (`close`), and a
 * server that drops the connection makes the client see a socket error (`UND_ERR_SOCKET`).
 *
 * Differences from a socket: no HTTP framing (no `Content-Length`/chunked encoding on the wire), no keep-alive, and
 * `CONNECT`/upgrade requests are refused with an error.
 */
export class InProcessDispatcher extends Dispatcher {
  private readonly open = new Set<Exchange>();
  private closed = false;
  private readonly host: string;
  private served = 0;

  constructor(
    private readonly server: SimHttpServer,
    options: InProcessDispatcherOptions = {},
  ) {
    super();
    this.host = options.host ?? "sim.invalid";
  }

  /** Requests in flight (watches stay listed while their stream is open). */
  get inflight(): readonly InProcessExchange[] {
    return [...this.open];
  }

  /** Requests dispatched since creation. */
  get requests(): number {
    return this.served;
  }

  override dispatch(opts: Dispatcher.DispatchOptions, handler: Dispatcher.DispatchHandler): boolean {
    if (this.closed) {
      queueMicrotask(() => failHandler(handler, new Error("InProcessDispatcher is closed")));
      return false;
    }
    if ((opts.method ?? "GET").toUpperCase() === "CONNECT" || opts.upgrade) {
      queueMicrotask(() =>
        failHandler(handler, new Error("InProcessDispatcher: CONNECT and upgrades are not supported")),
      );
      return true;
    }
    this.served++;
    let finished = false;
    const ex = new Exchange(opts, handler, this.host, () => {
      if (finished) return;
      finished = true;
      this.open.delete(ex);
    });
    this.open.add(ex);
    ex.bridge.start();
    if (ex.bridge.done) return true;
    void bodyBytes(opts.body).then(
      (body) => {
        if (ex.bridge.done) return;
        this.server.server.emit("request", ex.req as unknown as IncomingMessage, ex.res as unknown as ServerResponse);
        if (body !== undefined && body.length > 0) ex.req.push(body);
        ex.req.push(null);
      },
      (err: unknown) => {
        ex.bridge.error(err instanceof Error ? err : new Error(String(err)));
        this.open.delete(ex);
      },
    );
    return true;
  }

  /** Refuses new requests and resolves once every open exchange has ended (watches end when their server does). */
  override close(): Promise<void>;
  override close(callback: () => void): void;
  override close(callback?: () => void): Promise<void> | void {
    this.closed = true;
    const p = Promise.resolve();
    if (callback === undefined) return p;
    void p.then(callback);
  }

  /** Refuses new requests and ends every open exchange with an error on both sides. */
  override destroy(): Promise<void>;
  override destroy(err: Error | null): Promise<void>;
  override destroy(callback: () => void): void;
  override destroy(err: Error | null, callback: () => void): void;
  override destroy(a?: Error | null | (() => void), b?: () => void): Promise<void> | void {
    this.closed = true;
    const err =
      typeof a === "function" || a === undefined || a === null ? new Error("InProcessDispatcher destroyed") : a;
    for (const ex of [...this.open]) {
      ex.bridge.error(err);
      if (!ex.res.destroyed) ex.res.destroy();
    }
    this.open.clear();
    const cb = typeof a === "function" ? a : b;
    if (cb === undefined) return Promise.resolve();
    queueMicrotask(cb);
  }
}

function failHandler(handler: Dispatcher.DispatchHandler, err: Error): void {
  const bridge = new HandlerBridge(handler, () => undefined);
  bridge.start();
  bridge.error(err);
}
