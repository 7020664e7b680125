// The context of one request the HTTP face is serving (kube-apiserver's request context with its RequestInfo, the
// httplog's respLogger and the timeout filter's deadline, in one small object).
import type { IncomingMessage, ServerResponse } from "node:http";
import type { Socket } from "node:net";
import type { Timer } from "@informer-ts/clock";
import type { FilteredRequest } from "../engine/filters/index.js";
import type { RequestOutcome, RequestTraceConnection } from "../engine/request-models.js";
import type { BackendRequestContext } from "./backend.js";
import type { RequestInfo } from "./request-info.js";
import { verbOf } from "./resource-handler.js";
import type { WatchStreamEndReason } from "./watch-server.js";

/**
 * One request's context: what the backend sees (`BackendRequestContext`, with a cancellation signal created on
 * first use) and what the httplog and metrics need when it ends. Kept small: an idle watch holds one.
 */
export class InflightRequest implements BackendRequestContext, FilteredRequest {
  user = "";
  /** The authenticator's groups of {@link user}. */
  groups: readonly string[] | undefined = undefined;
  /** The authenticator's uid and extra of {@link user}. */
  uid: string | undefined = undefined;
  extra: Readonly<Record<string, readonly string[]>> | undefined = undefined;
  verb = "";
  group = "";
  version = "";
  resource = "";
  namespace = "";
  name = "";
  isResource = false;
  /** A PATCH with `application/apply-patch+yaml`: server-side apply (metrics report it as `APPLY`). */
  apply = false;
  watchEnd: WatchStreamEndReason | undefined;
  servedFrom: "cache" | "storage" | undefined = undefined;
  /** Set by the backend when the engine's request models are on (audit ID, cost). */
  outcome: RequestOutcome | undefined = undefined;
  /** Socket bytes written before this request (keep-alive sockets carry several requests). */
  startBytes = 0;
  socket: Socket | undefined;
  /** The request (an in-process emulated response has no `req` of its own, so it is kept here). */
  request: IncomingMessage | undefined;
  response: ServerResponse | undefined;
  /** The request URI as the client sent it (path and query). */
  uri = "";
  private controller: AbortController | undefined;
  private aborted = false;
  /** The non-long-running request timeout (not armed for watches). */
  deadline: Timer | undefined;
  private abortHook: (() => void) | undefined;

  constructor(
    readonly start: number,
    readonly method: string,
    readonly userAgent: string,
  ) {}

  describe(info: RequestInfo, watchParam: boolean): void {
    this.isResource = info.isResourceRequest;
    this.verb = info.isResourceRequest ? verbOf(this.method, info, watchParam) : this.method.toLowerCase();
    this.group = info.apiGroup;
    this.version = info.apiVersion;
    this.resource = info.resource;
    this.namespace = info.namespace;
    this.name = info.name;
  }

  /** When the request's headers arrived (the filters' receive time). */
  get receivedAt(): number {
    return this.start;
  }

  /** The connection as the engine's trace log shows it; computed when read, so an idle watch holds nothing more. */
  get trace(): RequestTraceConnection | undefined {
    const req = this.request;
    if (req === undefined) return undefined;
    return {
      path: (req.url ?? "/").split("?")[0]!,
      accept: req.headers.accept ?? "unknown",
      client: req.socket.remoteAddress ?? "unknown",
      protocol: `HTTP/${req.httpVersion}`,
    };
  }

  /** Whether the response has been completely written (a finished watch body included). */
  get answered(): boolean {
    return this.response?.writableEnded === true;
  }

  get signal(): AbortSignal {
    if (this.controller === undefined) {
      this.controller = new AbortController();
      if (this.aborted) this.controller.abort();
    }
    return this.controller.signal;
  }

  /** Called on cancellation; set after the request was already cancelled, it runs at once. */
  set onAbort(fn: (() => void) | undefined) {
    this.abortHook = fn;
    if (this.aborted) fn?.();
  }

  get onAbort(): (() => void) | undefined {
    return this.abortHook;
  }

  abort(): void {
    if (this.aborted) return;
    this.aborted = true;
    this.controller?.abort();
    this.abortHook?.();
  }
}
