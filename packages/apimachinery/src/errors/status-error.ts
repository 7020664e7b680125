import type { FieldErrorType } from "../field-error.js";
import type { Status, StatusDetails } from "../types.js";

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

/** Wraps a Status (e.g. from an ERROR watch event or a response body) as an error. */
export function fromStatus(status: Status): StatusError {
  return new StatusError(status);
}

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
