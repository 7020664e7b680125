import { type StatusReason, statusOf } from "./status-error.js";

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
