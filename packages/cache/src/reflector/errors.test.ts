import {
  failureStatus,
  isInternalError,
  newForbidden,
  newTooManyRequests,
  StatusError,
} from "@informer-ts/apimachinery";
import { describe, expect, it } from "vitest";
import { isWatchErrorRetriable, isWatchStreamEnd, VeryShortWatchError, watchIterationError } from "./errors.js";
import { errorInfo } from "./status.js";

const withCode = (message: string, code: string) => Object.assign(new Error(message), { code });

describe("reflector error classification", () => {
  it("F12: a refused connection (through a cause chain) and 429 are retriable; 403 is not", () => {
    expect(isWatchErrorRetriable(new TypeError("fetch failed", { cause: withCode("x", "ECONNREFUSED") }))).toBe(true);
    expect(isWatchErrorRetriable(withCode("reset", "ECONNRESET"))).toBe(false);
    expect(isWatchErrorRetriable(newTooManyRequests("busy", 1))).toBe(true);
    expect(isWatchErrorRetriable(newForbidden({ group: "", resource: "pods" }, "", "no"))).toBe(false);
  });

  it("a watch stream ends quietly on a probable EOF, a network timeout or an abort (StreamWatcher)", () => {
    expect(isWatchStreamEnd(withCode("read ECONNRESET", "ECONNRESET"))).toBe(true);
    expect(isWatchStreamEnd(Object.assign(new Error("t"), { name: "TimeoutError" }))).toBe(true);
    expect(isWatchStreamEnd(withCode("body timeout", "UND_ERR_BODY_TIMEOUT"))).toBe(true);
    expect(isWatchStreamEnd(Object.assign(new Error("This operation was aborted"), { name: "AbortError" }))).toBe(true);
    expect(isWatchStreamEnd(withCode("aborted", "UND_ERR_ABORTED"))).toBe(true);
    expect(isWatchStreamEnd(new Error('configmaps "EOF-x" not found'))).toBe(false);
    expect(isWatchStreamEnd(new SyntaxError("Unexpected token } in JSON"))).toBe(false);
  });

  it("watch iteration errors map like client-go's StreamWatcher", () => {
    const status = new StatusError(failureStatus(410, "Expired", "old"));
    expect(watchIterationError(status)).toBe(status);
    expect(watchIterationError(withCode("socket hang up", "ECONNRESET"))).toBeUndefined();
    const truncated = Object.assign(new Error("watch stream: truncated at byte offset 10 (5 bytes): …"), {
      name: "WatchDecodeError",
      kind: "truncated",
    });
    expect(watchIterationError(truncated)).toBeUndefined();
    // An in-process source's face of the same fault: a premature close (the sim-apiserver's SimTruncatedWatchError).
    expect(watchIterationError(withCode("watch stream ended mid-event", "ERR_STREAM_PREMATURE_CLOSE"))).toBeUndefined();
    const malformed = Object.assign(new Error("watch stream: malformed-json at byte offset 0"), {
      name: "WatchDecodeError",
      kind: "malformed-json",
    });
    expect(isInternalError(watchIterationError(malformed))).toBe(true);
    const decode = watchIterationError(new SyntaxError("Unexpected end of JSON input"));
    expect(isInternalError(decode)).toBe(true);
    expect(decode?.message).toBe(
      "Internal error occurred: unable to decode an event from the watch stream: Unexpected end of JSON input",
    );
  });

  it("errorInfo keeps HTTP code, reason, retry-after; errno for transport errors; never throws", () => {
    expect(errorInfo(newTooManyRequests("busy", 3))).toEqual({
      message: "busy",
      name: "StatusError",
      code: 429,
      reason: "TooManyRequests",
      retryAfterSeconds: 3,
    });
    expect(errorInfo(new TypeError("fetch failed", { cause: withCode("x", "ECONNREFUSED") }))).toMatchObject({
      errno: "ECONNREFUSED",
      name: "TypeError",
    });
    const circular: Record<string, unknown> = {};
    circular.self = circular;
    expect(errorInfo(circular).message).toBe("[object Object]");
    expect(errorInfo("plain").message).toBe("plain");
    expect(new VeryShortWatchError("r").name).toBe("VeryShortWatchError");
  });
});
