import {
  isAlreadyExists,
  isConflict,
  isForbidden,
  isInternalError,
  isNotFound,
  isResourceExpired,
  isResourceVersionTooLarge,
  isServiceUnavailable,
  isTooManyRequests,
  isUnauthorized,
  newNotFound,
  newTooLargeResourceVersion,
  StatusError,
  suggestsClientDelay,
} from "@informer-ts/apimachinery";
import { describe, expect, it } from "vitest";
import {
  CAUSE_TYPE_UNEXPECTED_SERVER_RESPONSE,
  newGenericServerResponse,
  parseFailureStatus,
  statusErrorFromResponse,
} from "./response-errors.js";

const json = { "content-type": "application/json" };
const getCM = { verb: "GET", group: "", resource: "configmaps", name: "foo" };

describe("statusErrorFromResponse (transformResponse + Result.Error)", () => {
  it("a Status body becomes that StatusError, untouched", () => {
    const body = JSON.stringify(newNotFound({ group: "", resource: "configmaps" }, "foo").status);
    const err = statusErrorFromResponse(404, json, body, getCM);
    expect(err).toBeInstanceOf(StatusError);
    expect(isNotFound(err)).toBe(true);
    expect(err.message).toBe('configmaps "foo" not found');
    expect(err.status).toEqual(JSON.parse(body));
  });

  it("the 504 too-large-RV Status keeps its cause and retry-after", () => {
    const body = JSON.stringify(newTooLargeResourceVersion(12313646, 12313645, 1).status);
    const err = statusErrorFromResponse(504, { ...json, "retry-after": "1" }, body, getCM);
    expect(isResourceVersionTooLarge(err)).toBe(true);
    expect(suggestsClientDelay(err)).toBe(1);
  });

  it("an in-stream-style 410 Expired Status is recognised", () => {
    const body =
      '{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"too old","reason":"Expired","code":410}';
    expect(isResourceExpired(statusErrorFromResponse(410, json, body, getCM))).toBe(true);
  });

  it("APF's plain-text 429 becomes TooManyRequests with Retry-After from the header", () => {
    const err = statusErrorFromResponse(
      429,
      { "content-type": "text/plain; charset=utf-8", "retry-after": "3" },
      "Too many requests, please try again later.\n",
      { verb: "GET", group: "", resource: "configmaps" },
    );
    expect(isTooManyRequests(err)).toBe(true);
    expect(err.code).toBe(429);
    expect(err.retryAfterSeconds).toBe(3);
    expect(suggestsClientDelay(err)).toBe(3);
    expect(err.message).toBe(
      "the server has received too many requests and has asked us to try again later (get configmaps)",
    );
    expect(err.details?.causes).toEqual([
      { reason: CAUSE_TYPE_UNEXPECTED_SERVER_RESPONSE, message: "Too many requests, please try again later." },
    ]);
  });

  it("a Status without retryAfterSeconds gets the Retry-After header's value (documented deviation)", () => {
    const body =
      '{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","reason":"TooManyRequests","code":429}';
    expect(statusErrorFromResponse(429, { ...json, "retry-after": "4" }, body, getCM).retryAfterSeconds).toBe(4);
  });

  it("an HTML 502 from a proxy becomes InternalError quoting the text; a binary body is 'unknown'", () => {
    const html = statusErrorFromResponse(502, { "content-type": "text/html" }, "<h1>Bad Gateway</h1>", getCM);
    expect(isInternalError(html)).toBe(true);
    expect(html.message).toBe(
      'an error on the server ("<h1>Bad Gateway</h1>") has prevented the request from succeeding (get configmaps foo)',
    );
    const bin = statusErrorFromResponse(500, { "content-type": "application/octet-stream" }, "\u0000\u0001", getCM);
    expect(bin.message).toContain('("unknown")');
  });

  it("caps the unstructured text at 2 KiB", () => {
    const err = statusErrorFromResponse(503, { "content-type": "text/plain" }, "x".repeat(10_000), getCM);
    expect(isServiceUnavailable(err)).toBe(true);
    expect(err.details?.causes?.[0]?.message).toHaveLength(2048);
  });

  it("a JSON body that is not a Failure Status is treated as unstructured", () => {
    expect(parseFailureStatus('{"kind":"ConfigMap"}')).toBeUndefined();
    expect(parseFailureStatus('{"kind":"Status","status":"Success"}')).toBeUndefined();
    expect(parseFailureStatus("not json")).toBeUndefined();
    expect(parseFailureStatus('{"status":"Failure","code":403,"reason":"Forbidden"}')?.kind).toBe("Status");
    const err = statusErrorFromResponse(403, json, '{"foo":1}', getCM);
    expect(isForbidden(err)).toBe(true);
  });
});

describe("newGenericServerResponse", () => {
  it.each([
    [401, "GET", isUnauthorized, "the server has asked for the client to provide credentials"],
    [409, "POST", isAlreadyExists, "the server reported a conflict"],
    [409, "PUT", isConflict, "the server reported a conflict"],
    [404, "GET", isNotFound, "the server could not find the requested resource"],
  ] as const)("%d %s", (code, verb, pred, msg) => {
    const err = newGenericServerResponse(
      code,
      { verb, group: "apps", resource: "deployments", name: "d" },
      "",
      0,
      false,
    );
    expect(pred(err)).toBe(true);
    expect(err.message).toBe(`${msg} (${verb.toLowerCase()} deployments.apps d)`);
    expect(err.details).toEqual({ name: "d", group: "apps", kind: "deployments" });
  });

  it("an unknown code below 500 has no reason", () => {
    const err = newGenericServerResponse(418, { verb: "GET" }, "teapot", 0, true);
    expect(err.reason).toBe("");
    expect(err.message).toBe("the server responded with the status code 418 but did not return more information");
  });
});
