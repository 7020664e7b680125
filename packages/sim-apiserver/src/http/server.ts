import { createServer as createHttpServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import { createServer as createHttpsServer } from "node:https";
import type { AddressInfo, Socket } from "node:net";
import { newTimeoutError, newUnauthorized } from "@informer-ts/apimachinery";
import { type Clock, realClock } from "@informer-ts/clock";
import { type Logger, type MetricsProvider, newConsoleLogger, SignalLink } from "@informer-ts/instrumentation";
import { checkAuthorized } from "../engine/authorization/index.js";
import { RequestFilters, type RequestInFlight, unansweredRequestStatus } from "../engine/filters/index.js";
import { reviewUserOf } from "../engine/registry/index.js";
import {
  ISSUER_DISCOVERY_CACHE_CONTROL,
  JWKS_PATH,
  OPENID_CONFIGURATION_PATH,
} from "../engine/serviceaccount/issuer-discovery.js";
import {
  aggregatedDiscovery,
  checkLegacyDiscoveryAccept,
  DEFAULT_AGGREGATED_DISCOVERY_VERSIONS,
  negotiateAggregatedDiscovery,
  writeAggregatedDiscovery,
} from "./aggregated-discovery.js";
import { type AuthOptions, authenticate, type BearerTokenAuthenticator } from "./auth.js";
import type { ApiBackend } from "./backend.js";
import { MAX_REQUEST_BODY_BYTES, readBody } from "./body.js";
import { apiGroup, apiGroupList, apiResourceList, apiVersions, SIM_VERSION_INFO } from "./discovery.js";
import { healthResponse, parseHealthPath } from "./health-checks.js";
import { apfFields, type HttpLogLine } from "./httplog.js";
import { impersonate, impersonationHeadersOf, parseImpersonationHeaders } from "./impersonation.js";
import { InflightRequest } from "./inflight-request.js";
import { serveOpenApi } from "./openapi-handler.js";
import { parseQueryBool } from "./query.js";
import { parseRequestInfo, type RequestInfo } from "./request-info.js";
import { RequestMetrics } from "./request-metrics.js";
import { type HttpServerStats, handleResourceRequest, type ResourceHandlerConfig } from "./resource-handler.js";
import {
  genericMethodNotAllowed,
  genericNotFound,
  writeApfTooManyRequests,
  writeJson,
  writePlainNotFound,
  writeStatus,
  writeText,
} from "./responsewriters.js";
import type { SimPki } from "./tls.js";

/** Something that renders Prometheus text (an `@informer-ts/instrumentation` `PromMetrics`). */
export interface MetricsRenderer {
  render(): Promise<string>;
  readonly contentType: string;
}

/**
 * The `/_sim/...` admin API: a handler that gets the sub-path (`faults`, `compact`, …), the method and the parsed
 * JSON body, and returns a JSON-able result (or throws a StatusError). See `admin.ts`.
 */
export type AdminHandler = (
  path: string,
  method: string,
  body: unknown,
  query: URLSearchParams,
) => Promise<{ status?: number; body: unknown }>;

/** Options of {@link SimHttpServer}. */
/** kube-apiserver's `--request-timeout` default: non-long-running requests are cut after 60 s. */
export const REQUEST_TIMEOUT_MS = 60_000;

export interface SimHttpServerOptions {
  readonly backend: ApiBackend;
  /** Listen address (default `127.0.0.1`). */
  readonly host?: string;
  /** Port (default 0 = any free port). */
  readonly port?: number;
  /** Serve HTTPS with this PKI (serving cert; client certs signed by its CA are accepted when auth allows). */
  readonly tls?: SimPki;
  /** Authentication (default: none, every request allowed). */
  readonly auth?: AuthOptions;
  /** `--max-resource-write-bytes` (default 3 MiB): larger bodies get 413. */
  readonly maxRequestBodyBytes?: number;
  readonly clock?: Clock;
  /** Renders `/metrics`. Without it `/metrics` is 404. */
  readonly metrics?: MetricsRenderer;
  /** Where the HTTP layer records `apiserver_longrunning_requests` (open watches; default: nowhere). Request
   * counters, latency and sizes are recorded once per request by the backend's accounting
   * ({@link ApiBackend.recordRequest}); the same provider may be shared with the engine. */
  readonly metricsProvider?: MetricsProvider;
  /** Serves `/_sim/*`. Without it those paths are 404. */
  readonly admin?: AdminHandler;
  /**
   * httplog: one `info` line per finished request, message `HTTP`, fields `{ ts, verb, method, uri, code, user,
   * userAgent, latencyMs, watchEnd?, auditID?, apf_…? }` ({@link HttpLogLine}). `newJsonLineLogger` renders them as
   * JSON lines. A request whose accounting or httplog line throws is logged here at `error` (message `HTTP request
   * finish failed`, fields `{ method, uri, code, stage, error }`) and counted in {@link HttpServerStats.finishErrors};
   * without a logger (or when it throws too) that line goes to `console.error`.
   */
  readonly logger?: Logger;
}

/** Where a finish failure goes when the server has no logger or its logger throws (klog's stderr). */
const fallbackLogger = newConsoleLogger("sim-apiserver-http");

/**
 * The HTTP(S) face of the simulated kube-apiserver: discovery (`/api`, `/apis`, group versions, `/version`),
 * OpenAPI v3 stubs, health endpoints, `/metrics`, the `/_sim` admin API and every resource request (list, get,
 * watch with chunked NDJSON, create, update, patch, delete) served from an {@link ApiBackend}. Errors are written as
 * exact Kubernetes Status bodies. Binds `127.0.0.1` by default.
 *
 * Differences from kube-apiserver: JSON only (no protobuf/CBOR/YAML output; aggregated discovery in JSON only), no
 * authorization (an authenticated user may do everything), minimal OpenAPI, no websocket watches.
 */
export class SimHttpServer {
  readonly server: Server;
  private readonly opts: SimHttpServerOptions;
  private readonly clock: Clock;
  private readonly sockets = new Set<Socket>();
  /** The `close` listener of every response: finishes the request it belongs to. */
  private readonly responseClosed: (this: ServerResponse) => void;
  /** The requests being served, by response (the response's `close` listener, shared by all, finds its own here). */
  private readonly inflight = new Map<ServerResponse, InflightRequest>();
  private readonly handlerConfig: ResourceHandlerConfig;
  private address: AddressInfo | undefined;
  /** Live counters: open/blocked watches, back-pressure waits, events and bytes written. */
  readonly stats: HttpServerStats = {
    openWatches: 0,
    blockedWatches: 0,
    backpressureWaits: 0,
    watchEvents: 0,
    watchBytes: 0,
    finishErrors: 0,
  };
  private closePromise: Promise<void> | undefined;
  private readonly requestMetrics: RequestMetrics | undefined;
  /** The request faults and the accounting, from the backend: the filters the in-process face runs too. */
  private readonly filters: RequestFilters;

  constructor(opts: SimHttpServerOptions) {
    const inflight = this.inflight;
    const finish = (rec: InflightRequest, req: IncomingMessage, res: ServerResponse) => this.finish(rec, req, res);
    this.responseClosed = function (this: ServerResponse) {
      const rec = inflight.get(this);
      if (rec?.request !== undefined) finish(rec, rec.request, this);
    };
    const sockets = this.sockets;
    const socketClosed = function (this: Socket) {
      sockets.delete(this);
    };
    this.opts = opts;
    this.clock = opts.clock ?? realClock;
    this.requestMetrics = opts.metricsProvider === undefined ? undefined : new RequestMetrics(opts.metricsProvider);
    const backend = opts.backend;
    this.filters = new RequestFilters({
      ...(backend.faultFor !== undefined && { faultFor: (req) => backend.faultFor?.(req) }),
      ...(backend.recordRequest !== undefined && { record: (rec) => backend.recordRequest?.(rec) }),
    });
    this.handlerConfig = {
      backend: opts.backend,
      maxRequestBodyBytes: opts.maxRequestBodyBytes ?? MAX_REQUEST_BODY_BYTES,
      now: () => this.clock.now(),
      onWatchEnd: (reason, ctx) => {
        if (ctx instanceof InflightRequest) ctx.watchEnd = reason;
      },
      stats: this.stats,
      ...(this.requestMetrics !== undefined && { requestMetrics: this.requestMetrics }),
    };
    const handler = (req: IncomingMessage, res: ServerResponse) => {
      this.handle(req, res).catch((err: unknown) => {
        // handle() catches everything itself; this is the last line of defence against an unhandled rejection.
        if (!res.headersSent) writeStatus(res, err);
        else res.destroy();
      });
    };
    this.server =
      opts.tls === undefined
        ? createHttpServer(handler)
        : createHttpsServer(
            {
              key: opts.tls.serving.key,
              cert: opts.tls.serving.cert,
              ca: opts.tls.ca.cert,
              requestCert: opts.auth?.clientCertificates === true,
              rejectUnauthorized: false,
            },
            handler,
          );
    // Watches are long-lived: no request or header timeouts from Node's defaults.
    this.server.requestTimeout = 0;
    this.server.headersTimeout = 60_000;
    this.server.keepAliveTimeout = 60_000;
    this.server.on(opts.tls === undefined ? "connection" : "secureConnection", (s: Socket) => {
      this.sockets.add(s);
      s.on("close", socketClosed);
    });
    this.server.on("clientError", (_err, socket) => {
      if (socket.writable) socket.end("HTTP/1.1 400 Bad Request\r\nConnection: close\r\n\r\n");
      else socket.destroy();
    });
  }

  /** Starts listening; resolves with the URL (`http://127.0.0.1:<port>`). */
  async start(): Promise<string> {
    await new Promise<void>((resolve, reject) => {
      const onError = (err: Error) => reject(err);
      this.server.once("error", onError);
      this.server.listen(this.opts.port ?? 0, this.opts.host ?? "127.0.0.1", () => {
        this.server.off("error", onError);
        resolve();
      });
    });
    this.address = this.server.address() as AddressInfo;
    return this.url;
  }

  /** The bound port (after {@link start}). */
  get port(): number {
    if (this.address === undefined) throw new Error("SimHttpServer: not started");
    return this.address.port;
  }

  /** `http(s)://<host>:<port>` (after {@link start}); IPv6 hosts are bracketed. */
  get url(): string {
    if (this.address === undefined) throw new Error("SimHttpServer: not started");
    const host = this.address.family === "IPv6" ? `[${this.address.address}]` : this.address.address;
    return `${this.opts.tls === undefined ? "http" : "https"}://${host}:${this.address.port}`;
  }

  /** Number of open client connections (watches included). */
  get connections(): number {
    return this.sockets.size;
  }

  /**
   * The non-watch responses whose status line went out but whose body is not finished — a streamed list still being
   * written or still queued in its socket — and the bytes their sockets have handed to the OS so far. These
   * bytes move in real time whatever the server's clock does: a harness driving a `FakeClock` waits for them to be
   * 0 (or to stop moving) before advancing virtual time, else the request timeout ({@link REQUEST_TIMEOUT_MS}) cuts a
   * list that was merely slow to cross the socket. Watches are not counted (they stream for as long as they live).
   */
  responsesInTransit(): { readonly responses: number; readonly bytesWritten: number } {
    let responses = 0;
    let bytesWritten = 0;
    for (const rec of this.inflight.values()) {
      const res = rec.response;
      if (rec.verb === "watch" || res === undefined || !res.headersSent || res.writableFinished) continue;
      responses++;
      // `bytesWritten` also counts what still waits in the socket's own buffer: only what the OS took has moved.
      bytesWritten += rec.socket === undefined ? 0 : rec.socket.bytesWritten - rec.socket.writableLength;
    }
    return { responses, bytesWritten };
  }

  /**
   * The resource requests in flight now, oldest first: each from the moment its headers arrived until its response
   * is closed (finished, or its connection gone) — an open watch until its client goes away or the server ends it.
   * The backend's accounting ({@link ApiBackend.recordRequest}) sees a request only when it ends, so this is where
   * an open watch shows. Non-resource requests (discovery, `/metrics`, `/_sim`) are left out. A snapshot, built when
   * called (the server tracks its requests anyway).
   */
  inFlightRequests(): RequestInFlight[] {
    const out: RequestInFlight[] = [];
    for (const rec of this.inflight.values()) {
      if (!rec.isResource) continue;
      out.push({
        verb: rec.verb,
        group: rec.group,
        version: rec.version,
        resource: rec.resource,
        namespace: rec.namespace,
        name: rec.name,
        requestURI: rec.uri,
        userAgent: rec.userAgent,
        receivedAt: rec.start,
        ...(rec.servedFrom !== undefined && { servedFrom: rec.servedFrom }),
      });
    }
    return out;
  }

  /**
   * The server's lifecycle in one call (the repo-wide `run(signal)` model): listens (unless {@link start} was
   * already called, which is how a caller learns the URL first), serves until `signal` aborts, then shuts down as
   * {@link close} does and resolves once the listener and every connection are closed. Adds one listener to
   * `signal`, removed when the run ends. Rejects only when listening fails (e.g. the port is taken).
   */
  async run(signal: AbortSignal): Promise<void> {
    if (this.address === undefined) await this.start();
    if (!signal.aborted) {
      const link = new SignalLink(signal);
      const stopped = new Promise<void>((resolve) =>
        link.signal.addEventListener("abort", () => resolve(), { once: true }),
      );
      await Promise.race([stopped, new Promise<void>((resolve) => this.server.once("close", () => resolve()))]);
      link.release();
    }
    await this.close();
  }

  /**
   * Stops accepting connections and shuts down like kube-apiserver's graceful termination: in-flight requests are
   * cancelled, so open watches end their bodies cleanly (the final chunk is written); then every connection is
   * closed — gently (flush, then FIN) where its response is complete, at once where a request is still unanswered.
   * A connection whose client does not read is dropped after 1 s of inactivity. Resolves when the listener is
   * closed. Idempotent.
   */
  close(): Promise<void> {
    this.closePromise ??= this.shutdown();
    return this.closePromise;
  }

  private async shutdown(): Promise<void> {
    const closed = new Promise<void>((resolve) => this.server.close(() => resolve()));
    for (const rec of this.inflight.values()) rec.abort();
    // One turn for aborted watches to see their engine watch end and write the last chunk.
    await new Promise<void>((resolve) => setImmediate(resolve));
    const unanswered = new Set<Socket>();
    for (const rec of this.inflight.values()) if (rec.socket !== undefined && !rec.answered) unanswered.add(rec.socket);
    for (const s of this.sockets) {
      if (unanswered.has(s)) {
        s.destroy();
        continue;
      }
      s.setTimeout(1000, () => s.destroy());
      s.end();
    }
    await closed;
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const rec = new InflightRequest(
      this.clock.now(),
      (req.method ?? "GET").toUpperCase(),
      req.headers["user-agent"] ?? "",
    );
    rec.startBytes = req.socket.bytesWritten;
    rec.socket = req.socket;
    rec.request = req;
    rec.response = res;
    rec.uri = req.url ?? "";
    let url: URL;
    try {
      url = new URL(req.url ?? "/", "http://sim.invalid");
    } catch {
      writeStatus(res, genericNotFound());
      return;
    }
    const info = parseRequestInfo(url.pathname);
    rec.describe(info, parseQueryBool(url.searchParams.get("watch")));
    this.inflight.set(res, rec);
    // One listener function for every response (no closure and `once` wrapper per request, which an idle watch
    // would hold).
    res.on("close", this.responseClosed);
    if (rec.verb !== "watch") {
      rec.deadline = this.clock.afterFunc(REQUEST_TIMEOUT_MS, () => this.timeOut(rec, res));
    }
    try {
      const authenticated = authenticate(req, info.path, this.opts.auth, this.serviceAccountTokens);
      if (authenticated === undefined) {
        writeStatus(res, newUnauthorized());
        return;
      }
      let u = authenticated;
      // The impersonation filter (after authentication, before priority and fairness and authorization).
      const impersonation = impersonationHeadersOf(req.headers, () => req.headersDistinct);
      if (Object.keys(impersonation).length > 0) {
        const parsed = parseImpersonationHeaders(impersonation);
        if (!parsed.ok) {
          // kube-apiserver answers a malformed impersonation with `responsewriters.InternalError` (plain text).
          writeText(res, 500, `Internal Server Error: ${JSON.stringify(req.url ?? "")}: ${parsed.error}`);
          return;
        }
        if (parsed.requests.length > 0) {
          u = impersonate(reviewUserOf(u.name, u.groups ?? []), parsed, this.opts.backend.authorizer?.());
        }
      }
      rec.user = u.name;
      rec.groups = u.groups;
      rec.uid = u.uid;
      rec.extra = u.extra;
      if (!info.isResourceRequest) {
        if (!info.path.startsWith("/_sim")) this.authorizeNonResource(rec, info.path);
        await this.handleNonResource(req, res, info, url);
        return;
      }
      const fault = this.filters.fault(rec);
      if (fault?.type === "apf-429") {
        writeApfTooManyRequests(res, fault.retryAfterSeconds);
        return;
      }
      if (fault?.type === "status") {
        writeStatus(res, fault.error);
        return;
      }
      if (fault?.type === "drop-connection") {
        req.socket.destroy();
        return;
      }
      await handleResourceRequest(req, res, info, url.searchParams, rec, this.handlerConfig, fault);
    } catch (err) {
      if (!res.headersSent) writeStatus(res, err);
      else if (!res.writableEnded) res.destroy();
    }
  }

  /**
   * kube-apiserver's timeout for requests that are not long-running (`--request-timeout`, 60 s): an unanswered
   * request gets 504 `Timeout: request did not complete within the allotted timeout`; one whose answer has started
   * (a streamed list to a client that stopped reading) loses its connection. Either way its work is cancelled.
   */
  private timeOut(rec: InflightRequest, res: ServerResponse): void {
    if (res.writableEnded) return;
    if (!res.headersSent) writeStatus(res, newTimeoutError("request did not complete within the allotted timeout"));
    else res.destroy();
    rec.abort();
  }

  /** Request finished (or its connection closed): cancel its context, record metrics and the httplog line. */
  private finish(rec: InflightRequest, req: IncomingMessage, res: ServerResponse): void {
    rec.deadline?.stop();
    rec.abort();
    this.inflight.delete(res);
    const now = this.clock.now();
    // The code the handler wrote; when no status line went out (the client went away, the connection dropped),
    // what kube-apiserver's filters record for such a request: 504 (timeout filter), 200 for a watch.
    const unanswered = !res.headersSent;
    const code = unanswered ? unansweredRequestStatus(rec.verb).code : res.statusCode;
    // Accounting and the httplog line run in a socket event handler: a throwing sink must not take the server down,
    // nor hide (each failure is counted and logged once with the request line), nor cost the other stage its work.
    let failure: { stage: "accounting" | "httplog"; error: unknown } | undefined;
    try {
      this.account(rec, req, code, now, unanswered);
    } catch (error) {
      failure = { stage: "accounting", error };
    }
    try {
      this.logRequest(rec, req, code, now);
    } catch (error) {
      failure ??= { stage: "httplog", error };
    }
    if (failure !== undefined) this.reportFinishFailure(rec, req, code, failure.stage, failure.error);
  }

  private account(rec: InflightRequest, req: IncomingMessage, code: number, now: number, unanswered: boolean): void {
    if (!rec.isResource) return;
    rec.apply = rec.verb === "patch" && (req.headers["content-type"] ?? "").startsWith("application/apply-patch+yaml");
    this.filters.finished(rec, {
      endedAt: now,
      code,
      unanswered,
      servedFrom: rec.servedFrom,
      bytes: req.socket.bytesWritten - rec.startBytes,
      requestURI: req.url ?? "",
      ...(req.socket.remoteAddress !== undefined && { sourceIP: req.socket.remoteAddress }),
      ...(rec.outcome !== undefined && { auditID: rec.outcome.auditID, unsleptMs: rec.outcome.unsleptMs }),
      ...(rec.outcome?.cost !== undefined && { cost: rec.outcome.cost }),
    });
  }

  /** The httplog line; a logger that throws is reported by {@link SimHttpServer.finish}. */
  private logRequest(rec: InflightRequest, req: IncomingMessage, code: number, now: number): void {
    const logger = this.opts.logger;
    if (logger === undefined) return;
    const line: HttpLogLine = {
      ts: new Date(now).toISOString(),
      verb: rec.verb,
      method: rec.method,
      uri: req.url ?? "",
      code,
      user: rec.user,
      userAgent: rec.userAgent,
      latencyMs: now - rec.start + (rec.outcome?.unsleptMs ?? 0),
      ...(rec.watchEnd !== undefined && { watchEnd: rec.watchEnd }),
      ...(rec.outcome !== undefined && { auditID: rec.outcome.auditID }),
      ...(rec.outcome?.cost !== undefined && apfFields(rec.outcome.cost)),
    };
    logger.log("info", "HTTP", line as unknown as Readonly<Record<string, unknown>>);
  }

  /** Counts a finish failure and logs it once, to the server's logger or, failing that, to `console.error`. */
  private reportFinishFailure(
    rec: InflightRequest,
    req: IncomingMessage,
    code: number,
    stage: "accounting" | "httplog",
    error: unknown,
  ): void {
    this.stats.finishErrors++;
    const fields = {
      method: rec.method,
      uri: req.url ?? "",
      code,
      stage,
      error: error instanceof Error ? error.message : String(error),
    };
    const message = "HTTP request finish failed";
    const logger = this.opts.logger;
    if (logger !== undefined) {
      try {
        logger.log("error", message, fields);
        return;
      } catch {
        // the server's logger is what failed: fall through to the console
      }
    }
    try {
      fallbackLogger.log("error", message, fields);
    } catch {
      // the console failed too: the count in stats.finishErrors is what remains
    }
  }

  /** The server's address as the request reached it (`https://host:port`). */
  private baseUrl(req: IncomingMessage): string {
    return `${this.opts.tls === undefined ? "http" : "https"}://${req.headers.host ?? `127.0.0.1:${this.port}`}`;
  }

  /** The backend's service-account token authenticator, when it has one. */
  private readonly serviceAccountTokens: BearerTokenAuthenticator = (token) =>
    this.opts.backend.authenticateToken?.(token) ?? { ok: false, error: "no service-account tokens" };

  /**
   * The authorization filter for a non-resource path (verb: the lowercased method): 403 with `forbiddenMessage`
   * (`User "alice" cannot get path "/apis"`) unless the backend's authorizer allows it. The request's user is the
   * one {@link handle} authenticated.
   */
  private authorizeNonResource(rec: InflightRequest, path: string): void {
    const authorizer = this.opts.backend.authorizer?.();
    if (authorizer === undefined || authorizer.mode === "AlwaysAllow") return;
    const attrs = {
      user: reviewUserOf(rec.user, rec.groups ?? []),
      resourceRequest: false as const,
      verb: rec.method.toLowerCase(),
      path,
    };
    checkAuthorized(authorizer, attrs);
  }

  private async handleNonResource(req: IncomingMessage, res: ServerResponse, info: RequestInfo, url: URL) {
    const method = (req.method ?? "GET").toUpperCase();
    const path = info.path;
    // The parsed path has no trailing slash: `/_sim/` arrives as `/_sim`, the endpoint list.
    if ((path === "/_sim" || path.startsWith("/_sim/")) && this.opts.admin !== undefined) {
      await this.handleAdmin(req, res, path.slice("/_sim/".length), method, url.searchParams);
      return;
    }
    const resources = this.opts.backend.resources();
    const segs = path.split("/").filter((s) => s !== "");
    const isGet = method === "GET" || method === "HEAD";
    const apiPath = segs[0] === "api" || segs[0] === "apis";
    if (!isGet && apiPath) throw genericMethodNotAllowed();
    if (apiPath && segs.length === 1) {
      // `/api` and `/apis` answer the aggregated document when the Accept header asks for it (wrapper.go).
      const accept = req.headers.accept;
      const served = this.opts.backend.aggregatedDiscoveryVersions?.() ?? DEFAULT_AGGREGATED_DISCOVERY_VERSIONS;
      const version = negotiateAggregatedDiscovery(accept, served);
      if (version !== undefined) {
        writeAggregatedDiscovery(req, res, aggregatedDiscovery(resources, segs[0] === "api" ? "api" : "apis", version));
        return;
      }
      checkLegacyDiscoveryAccept(accept);
    }
    if (segs[0] === "api" && segs.length === 1) {
      writeJson(res, 200, apiVersions(resources, req.headers.host ?? `127.0.0.1:${this.port}`));
      return;
    }
    if (segs[0] === "api" && segs.length === 2) {
      const body = apiResourceList(resources, "", segs[1]!, { podLog: this.opts.backend.podLog !== undefined });
      if (body === undefined) throw genericNotFound();
      writeJson(res, 200, body);
      return;
    }
    if (segs[0] === "apis" && segs.length === 1) {
      writeJson(res, 200, apiGroupList(resources));
      return;
    }
    if (segs[0] === "apis" && segs.length === 2) {
      const body = apiGroup(resources, segs[1]!);
      if (body === undefined) throw genericNotFound();
      writeJson(res, 200, body);
      return;
    }
    if (segs[0] === "apis" && segs.length === 3) {
      const body = apiResourceList(resources, segs[1]!, segs[2]!);
      if (body === undefined) throw genericNotFound();
      writeJson(res, 200, body);
      return;
    }
    if (apiPath) throw genericNotFound();
    if (!isGet) {
      writePlainNotFound(res);
      return;
    }
    const health = parseHealthPath(path);
    if (health !== undefined) {
      const text = healthResponse(health.endpoint, health.check, url.searchParams);
      if (text !== undefined) {
        writeText(res, 200, text);
        return;
      }
    }
    switch (path) {
      case OPENID_CONFIGURATION_PATH:
      case JWKS_PATH: {
        const docs = this.opts.backend.serviceAccountIssuerDiscovery?.(this.baseUrl(req));
        if (docs === undefined) break;
        const isJwks = path === JWKS_PATH;
        res.setHeader("Cache-Control", ISSUER_DISCOVERY_CACHE_CONTROL);
        writeText(
          res,
          200,
          JSON.stringify(isJwks ? docs.jwks : docs.configuration),
          isJwks ? "application/jwk-set+json" : "application/json",
        );
        return;
      }
      case "/version":
        writeJson(res, 200, this.opts.backend.versionInfo?.() ?? SIM_VERSION_INFO);
        return;
      case "/metrics":
        if (this.opts.metrics === undefined) break;
        writeText(res, 200, await this.opts.metrics.render(), this.opts.metrics.contentType);
        return;
      default:
        if (path.startsWith("/openapi/") && serveOpenApi(req, res, path, url.searchParams, resources)) return;
    }
    writePlainNotFound(res);
  }

  private async handleAdmin(
    req: IncomingMessage,
    res: ServerResponse,
    sub: string,
    method: string,
    q: URLSearchParams,
  ) {
    const text = (await readBody(req, 1024 * 1024)).toString("utf8");
    let body: unknown;
    if (text.trim() !== "") {
      try {
        body = JSON.parse(text);
      } catch (err) {
        writeJson(res, 400, { error: `invalid JSON body: ${err instanceof Error ? err.message : String(err)}` });
        return;
      }
    }
    const out = await this.opts.admin!(sub, method, body, q);
    writeJson(res, out.status ?? 200, out.body);
  }
}

// What this module declared before its parts moved to their own files stays importable from here.
export type { HttpLogLine } from "./httplog.js";
