import { type Status, type StatusDetails, StatusError } from "@informer-ts/apimachinery";
import { type ResponseHeaders, retryAfterSeconds } from "./with-retry.js";

/** `rest.maxUnstructuredResponseTextBytes`: how much of a non-Status error body is kept in the message. */
export const MAX_UNSTRUCTURED_RESPONSE_TEXT_BYTES = 2048;

/** `metav1.CauseTypeUnexpectedServerResponse`: marks a Status the client synthesized from a non-Status body. */
export const CAUSE_TYPE_UNEXPECTED_SERVER_RESPONSE = "UnexpectedServerResponse";

/** What the client knows about a failed request when it builds an error. */
export interface RequestDescription {
  /** HTTP method (`GET`, `POST`…). */
  readonly verb: string;
  /** API group of the resource ("" for core); with `resource` it is quoted in the message. */
  readonly group?: string;
  readonly resource?: string;
  readonly name?: string;
}

function groupResourceString(group: string, resource: string): string {
  return group === "" ? resource : `${resource}.${group}`;
}

/**
 * `errors.NewGenericServerResponse`: a Status for an error answer that did not carry one (a proxy's HTML page,
 * the plain-text 429 of API Priority and Fairness…). The reason follows from the code, the message is the
 * standard sentence for it plus `(<verb> <resource> [<name>])`, and `retryAfterSeconds` is taken from the
 * `Retry-After` header. With `isUnexpectedResponse` the server's text is kept as an `UnexpectedServerResponse`
 * cause.
 */
export function newGenericServerResponse(
  code: number,
  req: RequestDescription,
  serverMessage: string,
  retryAfter: number,
  isUnexpectedResponse: boolean,
): StatusError {
  let reason = "";
  let message = `the server responded with the status code ${code} but did not return more information`;
  switch (code) {
    case 409:
      reason = req.verb === "POST" ? "AlreadyExists" : "Conflict";
      message = "the server reported a conflict";
      break;
    case 404:
      reason = "NotFound";
      message = "the server could not find the requested resource";
      break;
    case 400:
      reason = "BadRequest";
      message = "the server rejected our request for an unknown reason";
      break;
    case 401:
      reason = "Unauthorized";
      message = "the server has asked for the client to provide credentials";
      break;
    case 403:
      reason = "Forbidden";
      message = serverMessage;
      break;
    case 406:
      reason = "NotAcceptable";
      message =
        serverMessage === "" || serverMessage === "unknown"
          ? "the server was unable to respond with a content type that the client supports"
          : serverMessage;
      break;
    case 415:
      reason = "UnsupportedMediaType";
      message = serverMessage;
      break;
    case 405:
      reason = "MethodNotAllowed";
      message = "the server does not allow this method on the requested resource";
      break;
    case 422:
      reason = "Invalid";
      message = "the server rejected our request due to an error in our request";
      break;
    case 503:
      reason = "ServiceUnavailable";
      message = "the server is currently unable to handle the request";
      break;
    case 504:
      reason = "Timeout";
      message =
        "the server was unable to return a response in the time allotted, but may still be processing the request";
      break;
    case 429:
      reason = "TooManyRequests";
      message = "the server has received too many requests and has asked us to try again later";
      break;
    default:
      if (code >= 500) {
        reason = "InternalError";
        message = `an error on the server (${JSON.stringify(serverMessage)}) has prevented the request from succeeding`;
      }
  }
  const group = req.group ?? "";
  const resource = req.resource ?? "";
  const name = req.name ?? "";
  if (resource !== "") {
    const gr = groupResourceString(group, resource);
    message = `${message} (${req.verb.toLowerCase()} ${gr}${name === "" ? "" : ` ${name}`})`;
  }
  const details: StatusDetails = {};
  if (name !== "") details.name = name;
  if (group !== "") details.group = group;
  if (resource !== "") details.kind = resource;
  if (isUnexpectedResponse)
    details.causes = [{ reason: CAUSE_TYPE_UNEXPECTED_SERVER_RESPONSE, message: serverMessage }];
  if (retryAfter > 0) details.retryAfterSeconds = retryAfter;
  const status: Status = { kind: "Status", apiVersion: "v1", metadata: {}, status: "Failure", message, reason };
  status.details = details;
  status.code = code;
  return new StatusError(status);
}

function headerValue(headers: ResponseHeaders, name: string): string | undefined {
  const v = headers[name];
  return Array.isArray(v) ? v[0] : v;
}

/** `isTextResponse`: no Content-Type, or a `text/*` one. */
export function isTextResponse(headers: ResponseHeaders): boolean {
  const ct = headerValue(headers, "content-type");
  if (ct === undefined || ct === "") return true;
  return ct.trim().toLowerCase().startsWith("text/");
}

/** A `Failure` Status decoded from a body, or `undefined` when the body is not one. */
export function parseFailureStatus(body: string): Status | undefined {
  let parsed: unknown;
  try {
    parsed = JSON.parse(body);
  } catch {
    return undefined;
  }
  if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed)) return undefined;
  const o = parsed as Record<string, unknown>;
  // An old server may omit kind/apiVersion: client-go then defaults the version and checks the status field.
  if (o.kind !== undefined && o.kind !== "Status") return undefined;
  if (o.status !== "Failure") return undefined;
  const status = { ...o, kind: "Status", apiVersion: "v1" } as Status;
  if (typeof status.metadata !== "object" || status.metadata === null) status.metadata = {};
  return status;
}

/**
 * The error for a non-2xx answer (`transformResponse` + `Result.Error`): the server's own Status when the body
 * is a `Failure` Status; otherwise {@link newGenericServerResponse} with the body text (first 2 KiB, only when
 * the answer is `text/*` or untyped) and `Retry-After`.
 *
 * Differences from client-go: when the body is a Status without `details.retryAfterSeconds` but the answer
 * carries a `Retry-After` header, the header's value is copied into `details.retryAfterSeconds`, so
 * `suggestsClientDelay` sees the server's advice either way.
 */
export function statusErrorFromResponse(
  code: number,
  headers: ResponseHeaders,
  body: string,
  req: RequestDescription,
): StatusError {
  const retryAfter = retryAfterSeconds(headers);
  const status = parseFailureStatus(body);
  if (status !== undefined) {
    if (retryAfter !== undefined && retryAfter > 0 && !(status.details?.retryAfterSeconds !== undefined)) {
      status.details = { ...status.details, retryAfterSeconds: retryAfter };
    }
    if (status.code === undefined || status.code === 0) status.code = code;
    return new StatusError(status);
  }
  const text =
    body.length > MAX_UNSTRUCTURED_RESPONSE_TEXT_BYTES ? body.slice(0, MAX_UNSTRUCTURED_RESPONSE_TEXT_BYTES) : body;
  const message = isTextResponse(headers) ? text.trim() : "unknown";
  return newGenericServerResponse(code, req, message, retryAfter ?? 0, true);
}
