import { type FieldError, type FieldErrorType, fieldErrorBody, fieldErrorString } from "./field-error.js";
import type { GroupResource } from "./schema.js";
import type { Status, StatusCause, StatusDetails } from "./types.js";

/** `metav1.StatusReason` values that informer-ts produces or recognises. */
export type StatusReason =
  | "BadRequest"
  | "Unauthorized"
  | "Forbidden"
  | "NotFound"
  | "AlreadyExists"
  | "Conflict"
  | "Gone"
  | "Expired"
  | "Invalid"
  | "MethodNotAllowed"
  | "RequestEntityTooLarge"
  | "TooManyRequests"
  | "InternalError"
  | "ServiceUnavailable"
  | "Timeout"
  | "UnsupportedMediaType"
  | "NotAcceptable"
  | "";

/** `metav1.CauseType` values used here: the field failures and the watch cache's too-large resourceVersion.
 * Serialized as `reason` inside a cause. */
export type CauseType = FieldErrorType | "ResourceVersionTooLarge";

/** A kind with its API group: `{ group: "meta.k8s.io", kind: "ListOptions" }` prints `ListOptions.meta.k8s.io`. */
export interface GroupKind {
  readonly group: string;
  readonly kind: string;
}

function groupResourceString(gr: GroupResource): string {
  return gr.group === "" ? gr.resource : `${gr.resource}.${gr.group}`;
}

function groupKindString(gk: GroupKind): string {
  return gk.group === "" ? gk.kind : `${gk.kind}.${gk.group}`;
}

/** Go's `%q` for the strings that appear in API messages. */
function quote(s: string): string {
  return JSON.stringify(s);
}

/**
 * An error carrying a Kubernetes {@link Status} (`errors.StatusError`). Everything the API server says went
 * wrong arrives as one of these: the HTTP code, the machine-readable `reason`, `details` (causes, the
 * retry-after hint) and the human message. Use the `is…` predicates rather than comparing codes.
 */
export class StatusError extends Error {
  override readonly name = "StatusError";
  readonly status: Status;

  constructor(status: Status) {
    super(status.message ?? `${status.reason ?? "Unknown"} (HTTP ${status.code ?? 0})`);
    this.status = status;
  }

  /** HTTP status code (0 when the Status has none). */
  get code(): number {
    return this.status.code ?? 0;
  }

  get reason(): StatusReason | string {
    return this.status.reason ?? "";
  }

  get details(): StatusDetails | undefined {
    return this.status.details;
  }

  /** `details.retryAfterSeconds` when the server suggested a delay. */
  get retryAfterSeconds(): number | undefined {
    const s = this.status.details?.retryAfterSeconds;
    return s !== undefined && s > 0 ? s : undefined;
  }
}

/** Builds a failure Status in the field order kube-apiserver serializes (kind, apiVersion, metadata, status, …). */
export function failureStatus(code: number, reason: StatusReason, message: string, details?: StatusDetails): Status {
  const status: Status = { kind: "Status", apiVersion: "v1", metadata: {}, status: "Failure", message, reason };
  if (details !== undefined) status.details = details;
  status.code = code;
  return status;
}

function make(code: number, reason: StatusReason, message: string, details?: StatusDetails): StatusError {
  return new StatusError(failureStatus(code, reason, message, details));
}

/** Wraps a Status (e.g. from an ERROR watch event or a response body) as an error. */
export function fromStatus(status: Status): StatusError {
  return new StatusError(status);
}

/** 400 BadRequest. */
export function newBadRequest(message: string): StatusError {
  return make(400, "BadRequest", message);
}

/** 401 Unauthorized. */
export function newUnauthorized(message = "Unauthorized"): StatusError {
  return make(401, "Unauthorized", message);
}

/**
 * 403 Forbidden: `<resource> "<name>" is forbidden: <reason>`; without a resource (a non-resource path)
 * `forbidden: <reason>`, as upstream's `NewForbidden`.
 */
export function newForbidden(gr: GroupResource, name: string, reason: string): StatusError {
  const what = name === "" ? groupResourceString(gr) : `${groupResourceString(gr)} ${quote(name)}`;
  const message = gr.group === "" && gr.resource === "" ? `forbidden: ${reason}` : `${what} is forbidden: ${reason}`;
  return make(403, "Forbidden", message, {
    ...(name !== "" && { name }),
    group: gr.group,
    kind: gr.resource,
  });
}

/** 404 NotFound: `configmaps "foo" not found`. `details.kind` is the resource, as upstream. */
export function newNotFound(gr: GroupResource, name: string): StatusError {
  return make(404, "NotFound", `${groupResourceString(gr)} ${quote(name)} not found`, {
    name,
    group: gr.group,
    kind: gr.resource,
  });
}

/** 409 AlreadyExists. */
export function newAlreadyExists(gr: GroupResource, name: string): StatusError {
  return make(409, "AlreadyExists", `${groupResourceString(gr)} ${quote(name)} already exists`, {
    name,
    group: gr.group,
    kind: gr.resource,
  });
}

/** The optimistic-concurrency message of the generic registry store. */
export const OPTIMISTIC_LOCK_ERROR_MSG =
  "the object has been modified; please apply your changes to the latest version and try again";

/** 409 Conflict: `Operation cannot be fulfilled on configmaps "foo": <reason>`. */
export function newConflict(gr: GroupResource, name: string, reason: string = OPTIMISTIC_LOCK_ERROR_MSG): StatusError {
  return make(
    409,
    "Conflict",
    `Operation cannot be fulfilled on ${groupResourceString(gr)} ${quote(name)}: ${reason}`,
    {
      name,
      group: gr.group,
      kind: gr.resource,
    },
  );
}

/** 410 Gone. */
export function newGone(message: string): StatusError {
  return make(410, "Gone", message);
}

/** 410 Expired (`NewResourceExpired`): what a too-old resourceVersion gets. */
export function newResourceExpired(message: string): StatusError {
  return make(410, "Expired", message);
}

/** 405 MethodNotAllowed: `<action> is not supported on resources of kind "<resource>"`. */
export function newMethodNotSupported(gr: GroupResource, action: string): StatusError {
  return make(
    405,
    "MethodNotAllowed",
    `${action} is not supported on resources of kind ${quote(groupResourceString(gr))}`,
    {
      group: gr.group,
      kind: gr.resource,
    },
  );
}

/** 413 RequestEntityTooLarge. */
export function newRequestEntityTooLarge(message: string): StatusError {
  return make(413, "RequestEntityTooLarge", `Request entity too large: ${message}`);
}

/** 429 TooManyRequests with a retry-after hint (also sent as the `Retry-After` header). */
export function newTooManyRequests(message: string, retryAfterSeconds: number): StatusError {
  return make(429, "TooManyRequests", message, { retryAfterSeconds });
}

/** 500 InternalError: `Internal error occurred: <err>`. */
export function newInternalError(err: string): StatusError {
  return make(500, "InternalError", `Internal error occurred: ${err}`, { causes: [{ message: err }] });
}

/** 503 ServiceUnavailable. */
export function newServiceUnavailable(message: string): StatusError {
  return make(503, "ServiceUnavailable", message);
}

/** 504 Timeout: `Timeout: <message>`. */
export function newTimeoutError(message: string, retryAfterSeconds = 0): StatusError {
  return make(504, "Timeout", `Timeout: ${message}`, retryAfterSeconds > 0 ? { retryAfterSeconds } : {});
}

/**
 * 504 Timeout with cause `ResourceVersionTooLarge` (`storage.NewTooLargeResourceVersionError`):
 * `Timeout: Too large resource version: <minimum>, current: <current>`. The watch cache sends it with
 * `retryAfterSeconds: 1`; the etcd path without.
 */
export function newTooLargeResourceVersion(
  minimumResourceVersion: string | number | bigint,
  currentResourceVersion: string | number | bigint,
  retryAfterSeconds: number,
): StatusError {
  const details: StatusDetails = {
    causes: [{ reason: "ResourceVersionTooLarge", message: "Too large resource version" }],
  };
  if (retryAfterSeconds > 0) details.retryAfterSeconds = retryAfterSeconds;
  return make(
    504,
    "Timeout",
    `Timeout: Too large resource version: ${minimumResourceVersion}, current: ${currentResourceVersion}`,
    details,
  );
}

/**
 * 422 Invalid: `<Kind[.group]> "<name>" is invalid: <errors>`, one cause per field error
 * (`errors.NewInvalid`). Several errors print as `[a, b]`, like Go's aggregate.
 */
export function newInvalid(gk: GroupKind, name: string, errs: readonly FieldError[]): StatusError {
  const causes: StatusCause[] = errs.map((e) => ({ reason: e.type, message: fieldErrorBody(e), field: e.field }));
  const list = errs.map(fieldErrorString);
  const aggregate = list.length === 1 ? list[0]! : `[${list.join(", ")}]`;
  return make(422, "Invalid", `${groupKindString(gk)} ${quote(name)} is invalid: ${aggregate}`, {
    name,
    group: gk.group,
    kind: gk.kind,
    causes,
  });
}

// ---------------------------------------------------------------------------------------------------------
// Predicates (apimachinery errors.IsXxx). They accept anything and never throw.

const codeForReason: Partial<Record<string, number>> = {
  BadRequest: 400,
  Unauthorized: 401,
  Forbidden: 403,
  NotFound: 404,
  AlreadyExists: 409,
  Conflict: 409,
  Gone: 410,
  Expired: 410,
  Invalid: 422,
  MethodNotAllowed: 405,
  RequestEntityTooLarge: 413,
  TooManyRequests: 429,
  InternalError: 500,
  ServiceUnavailable: 503,
  Timeout: 504,
};

/** The Status inside an error, if it is (or looks like) a {@link StatusError}. */
export function statusOf(err: unknown): Status | undefined {
  if (err instanceof StatusError) return err.status;
  if (typeof err === "object" && err !== null && "status" in err) {
    const s = (err as { status: unknown }).status;
    if (typeof s === "object" && s !== null && (s as { kind?: unknown }).kind === "Status") return s as Status;
  }
  return undefined;
}

/** `errors.ReasonForError`: "" for errors without a Status. */
export function reasonForError(err: unknown): string {
  return statusOf(err)?.reason ?? "";
}

function hasReasonOrCode(err: unknown, reason: StatusReason, code: number): boolean {
  const s = statusOf(err);
  if (s === undefined) return false;
  if (s.reason === reason) return true;
  // Like upstream: a reason the client does not know is matched by the HTTP code.
  const known = s.reason !== undefined && s.reason !== "" && codeForReason[s.reason] !== undefined;
  return !known && s.code === code;
}

export const isBadRequest = (err: unknown): boolean => hasReasonOrCode(err, "BadRequest", 400);
export const isUnauthorized = (err: unknown): boolean => hasReasonOrCode(err, "Unauthorized", 401);
export const isForbidden = (err: unknown): boolean => hasReasonOrCode(err, "Forbidden", 403);
export const isNotFound = (err: unknown): boolean => hasReasonOrCode(err, "NotFound", 404);
export const isAlreadyExists = (err: unknown): boolean => hasReasonOrCode(err, "AlreadyExists", 409);
export const isConflict = (err: unknown): boolean => hasReasonOrCode(err, "Conflict", 409);
export const isGone = (err: unknown): boolean => hasReasonOrCode(err, "Gone", 410);
export const isResourceExpired = (err: unknown): boolean => statusOf(err)?.reason === "Expired";
export const isInvalid = (err: unknown): boolean => hasReasonOrCode(err, "Invalid", 422);
export const isMethodNotSupported = (err: unknown): boolean => hasReasonOrCode(err, "MethodNotAllowed", 405);
export const isRequestEntityTooLarge = (err: unknown): boolean => hasReasonOrCode(err, "RequestEntityTooLarge", 413);
export const isTooManyRequests = (err: unknown): boolean => hasReasonOrCode(err, "TooManyRequests", 429);
export const isInternalError = (err: unknown): boolean => hasReasonOrCode(err, "InternalError", 500);
export const isServiceUnavailable = (err: unknown): boolean => hasReasonOrCode(err, "ServiceUnavailable", 503);
export const isTimeout = (err: unknown): boolean => hasReasonOrCode(err, "Timeout", 504);

/** The reflector's `isExpiredError`: 410 with reason Expired or Gone (F10). */
export function isExpired(err: unknown): boolean {
  return isResourceExpired(err) || isGone(err);
}

/**
 * `storage.IsTooLargeResourceVersion` as the reflector applies it (F11): a cause of type
 * `ResourceVersionTooLarge`, or — for servers before 1.20 — a Timeout whose cause or message says
 * "Too large resource version".
 */
export function isResourceVersionTooLarge(err: unknown): boolean {
  const s = statusOf(err);
  if (s === undefined) return false;
  const causes = s.details?.causes ?? [];
  if (causes.some((c) => c.reason === "ResourceVersionTooLarge")) return true;
  if (s.reason !== "Timeout") return false;
  const marker = "Too large resource version";
  return causes.some((c) => c.message?.includes(marker) === true) || (s.message?.includes(marker) ?? false);
}

/** `errors.SuggestsClientDelay`: the retry-after seconds a Status suggests (`details.retryAfterSeconds` > 0). */
export function suggestsClientDelay(err: unknown): number | undefined {
  const secs = statusOf(err)?.details?.retryAfterSeconds;
  return secs !== undefined && secs > 0 ? secs : undefined;
}
