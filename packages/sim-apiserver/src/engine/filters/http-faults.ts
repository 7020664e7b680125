import {
  newBadRequest,
  newInternalError,
  newServiceUnavailable,
  newTimeoutError,
  newTooManyRequests,
  StatusError,
} from "@informer-ts/apimachinery";
import { mathRand, type Rand } from "@informer-ts/clock";

/**
 * A fault the backend wants the HTTP layer to apply to one request before it reaches storage (decided per request,
 * so the engine's fault schedule stays the single source of truth).
 */
export type HttpFault =
  | { readonly type: "apf-429"; readonly retryAfterSeconds: number }
  | { readonly type: "status"; readonly error: unknown }
  | { readonly type: "truncate-watch"; readonly afterEvents: number }
  | { readonly type: "drop-connection" };

/** What a request looks like to the fault hook. */
export interface HttpRequestDescriptor {
  readonly verb: string;
  readonly group: string;
  readonly version: string;
  readonly resource: string;
  readonly namespace: string;
  readonly name: string;
  readonly userAgent: string;
}

/**
 * One HTTP-level fault rule (JSON, as accepted by `--fault` and `POST /_sim/faults`):
 *
 * ```json
 * {"type":"apf-429","retryAfterSeconds":1,"verbs":["list"],"resource":"configmaps","every":3,"count":5}
 * {"type":"status","code":500,"message":"etcd is sad"}
 * {"type":"truncate-watch","afterEvents":2}
 * {"type":"drop-connection","probability":0.1}
 * ```
 *
 * Matching: `verbs` (Kubernetes verbs: list, watch, get, create, update, patch, delete), `resource`, `namespace`,
 * `userAgent` (substring); absent = any. Firing among matching requests: every `every`-th (default 1 = all), with
 * `probability` (default 1, drawn from the injected Rand), at most `count` times (default unlimited).
 * `status` faults answer with a Status of `code`: 429 TooManyRequests (Retry-After), 500 InternalError, 503
 * ServiceUnavailable, 504 Timeout, 400 BadRequest; other codes with the reason upstream gives them (403 Forbidden,
 * 404 NotFound, 409 Conflict, …).
 */
export interface HttpFaultRule {
  readonly type: "apf-429" | "status" | "truncate-watch" | "drop-connection";
  readonly verbs?: readonly string[];
  readonly resource?: string;
  readonly namespace?: string;
  readonly userAgent?: string;
  readonly every?: number;
  readonly count?: number;
  readonly probability?: number;
  readonly retryAfterSeconds?: number;
  readonly code?: number;
  readonly message?: string;
  readonly afterEvents?: number;
}

/** A rule with its id and how often it matched and fired. */
export interface HttpFaultState {
  readonly id: number;
  readonly rule: HttpFaultRule;
  matched: number;
  fired: number;
}

const TYPES = new Set(["apf-429", "status", "truncate-watch", "drop-connection"]);

/** Validates a rule from JSON; throws an Error naming the bad field. */
export function parseHttpFaultRule(v: unknown): HttpFaultRule {
  if (typeof v !== "object" || v === null || Array.isArray(v)) throw new Error("fault: expected a JSON object");
  const r = v as Record<string, unknown>;
  if (typeof r.type !== "string" || !TYPES.has(r.type)) {
    throw new Error(`fault: type must be one of ${[...TYPES].join(", ")}, got ${JSON.stringify(r.type)}`);
  }
  const num = (k: string, min: number, max = Number.POSITIVE_INFINITY) => {
    if (r[k] === undefined) return;
    if (typeof r[k] !== "number" || !(r[k] >= min && r[k] <= max)) {
      throw new Error(`fault: ${k} must be a number in [${min}, ${max}], got ${JSON.stringify(r[k])}`);
    }
  };
  const str = (k: string) => {
    if (r[k] !== undefined && typeof r[k] !== "string") throw new Error(`fault: ${k} must be a string`);
  };
  num("every", 1);
  num("count", 0);
  num("probability", 0, 1);
  num("retryAfterSeconds", 0);
  num("code", 400, 599);
  num("afterEvents", 0);
  str("resource");
  str("namespace");
  str("userAgent");
  str("message");
  if (r.verbs !== undefined && !(Array.isArray(r.verbs) && r.verbs.every((x) => typeof x === "string"))) {
    throw new Error("fault: verbs must be an array of strings");
  }
  return r as unknown as HttpFaultRule;
}

/**
 * The `reason` apimachinery's `NewGenericServerResponse` gives a code (`StatusReason` per HTTP status); a code it
 * has none for answers with an empty reason, as upstream's `StatusReasonUnknown`.
 */
const REASON_BY_CODE: Readonly<Record<number, string>> = {
  401: "Unauthorized",
  403: "Forbidden",
  404: "NotFound",
  405: "MethodNotAllowed",
  406: "NotAcceptable",
  409: "Conflict",
  413: "RequestEntityTooLarge",
  415: "UnsupportedMediaType",
  422: "Invalid",
};

/**
 * The Status a `status` rule answers with. Its `retryAfterSeconds` (> 0) is the Status's `details.retryAfterSeconds`
 * whatever the code, as apimachinery's `NewGenericServerResponse` sets it for any code, so the HTTP face sends the
 * `Retry-After` header and client-go's retry logic (`checkWait`) sees it on a 500 or 503 too.
 */
function statusErrorFor(rule: HttpFaultRule): StatusError {
  const err = baseStatusErrorFor(rule);
  const retry = rule.retryAfterSeconds ?? 0;
  if (retry <= 0 || err.status.details?.retryAfterSeconds === retry) return err;
  return new StatusError({ ...err.status, details: { ...err.status.details, retryAfterSeconds: retry } });
}

function baseStatusErrorFor(rule: HttpFaultRule): StatusError {
  const msg = rule.message;
  switch (rule.code ?? 500) {
    case 400:
      return newBadRequest(msg ?? "injected fault");
    case 429:
      return newTooManyRequests(msg ?? "injected fault: too many requests", rule.retryAfterSeconds ?? 1);
    case 503:
      return newServiceUnavailable(msg ?? "injected fault: service unavailable");
    case 504:
      return newTimeoutError(msg ?? "injected fault", rule.retryAfterSeconds ?? 0);
    case 500:
      return newInternalError(msg ?? "injected fault");
    default:
      return new StatusError({
        kind: "Status",
        apiVersion: "v1",
        metadata: {},
        status: "Failure",
        message: msg ?? "injected fault",
        reason: REASON_BY_CODE[rule.code ?? 500] ?? "",
        code: rule.code ?? 500,
      });
  }
}

/**
 * HTTP-level fault injection (what happens between the client and the apiserver's storage): APF 429s, error
 * Statuses, truncated watch streams and dropped connections, decided per request by {@link HttpFaultRule}s.
 * Storage-level faults (compaction, cache re-initialization, slow watchers) belong to the engine.
 */
export class HttpFaultInjector {
  private nextId = 1;
  private readonly rules: HttpFaultState[] = [];

  constructor(private readonly rand: Rand = mathRand) {}

  /** Adds a rule; returns its id. */
  add(rule: HttpFaultRule): number {
    const id = this.nextId++;
    this.rules.push({ id, rule: parseHttpFaultRule(rule), matched: 0, fired: 0 });
    return id;
  }

  /** Removes one rule (by id) or all rules; returns how many were removed. */
  clear(id?: number): number {
    if (id === undefined) return this.rules.splice(0).length;
    const i = this.rules.findIndex((r) => r.id === id);
    return i < 0 ? 0 : this.rules.splice(i, 1).length;
  }

  /** Snapshot of the rules with their counters. */
  list(): readonly HttpFaultState[] {
    return this.rules.map((r) => ({ ...r }));
  }

  /** The fault for this request, if any rule fires (first firing rule wins). */
  faultFor(req: HttpRequestDescriptor): HttpFault | undefined {
    for (const s of this.rules) {
      const r = s.rule;
      if (r.verbs !== undefined && !r.verbs.includes(req.verb)) continue;
      if (r.resource !== undefined && r.resource !== req.resource) continue;
      if (r.namespace !== undefined && r.namespace !== req.namespace) continue;
      if (r.userAgent !== undefined && !req.userAgent.includes(r.userAgent)) continue;
      if (r.type === "truncate-watch" && req.verb !== "watch") continue;
      s.matched++;
      if (r.count !== undefined && s.fired >= r.count) continue;
      if (s.matched % (r.every ?? 1) !== 0) continue;
      if (r.probability !== undefined && this.rand.float() >= r.probability) continue;
      s.fired++;
      switch (r.type) {
        case "apf-429":
          return { type: "apf-429", retryAfterSeconds: r.retryAfterSeconds ?? 1 };
        case "status":
          return { type: "status", error: statusErrorFor(r) };
        case "truncate-watch":
          return { type: "truncate-watch", afterEvents: r.afterEvents ?? 0 };
        case "drop-connection":
          return { type: "drop-connection" };
      }
    }
    return undefined;
  }
}
