import { type FieldError, fieldErrorBody, fieldErrorString } from "../field-error.js";
import type { GroupResource } from "../schema.js";
import type { StatusCause, StatusDetails } from "../types.js";
import { failureStatus, type GroupKind, StatusError, type StatusReason } from "./status-error.js";

// The constructors of apimachinery's api/errors (errors.NewXxx): each reason's code, message form and details.

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

function make(code: number, reason: StatusReason, message: string, details?: StatusDetails): StatusError {
  return new StatusError(failureStatus(code, reason, message, details));
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
