import { describe, expect, it } from "vitest";
import {
  anyErrorInChain,
  errnoOf,
  isConnectionRefused,
  isConnectionReset,
  isNetworkTimeout,
  isProbableEOF,
} from "./net.js";

const withCode = (message: string, code: string) => Object.assign(new Error(message), { code });

describe("util/net error classification", () => {
  it("walks cause chains and AggregateError members, depth-limited (a cycle terminates)", () => {
    const inner = withCode("connect ECONNREFUSED 127.0.0.1:1", "ECONNREFUSED");
    expect(isConnectionRefused(new TypeError("fetch failed", { cause: inner }))).toBe(true);
    expect(isConnectionRefused(new AggregateError([withCode("a", "ETIMEDOUT"), inner]))).toBe(true);
    const cyclic: { cause?: unknown } = {};
    cyclic.cause = cyclic;
    expect(anyErrorInChain(cyclic, () => false)).toBe(false);
    expect(errnoOf(new TypeError("fetch failed", { cause: inner }))).toBe("ECONNREFUSED");
    expect(errnoOf(new Error("no code"))).toBeUndefined();
    expect(isConnectionRefused(undefined)).toBe(false);
  });

  it("connection refused and reset are told apart", () => {
    expect(isConnectionRefused(withCode("reset", "ECONNRESET"))).toBe(false);
    expect(isConnectionReset(withCode("read ECONNRESET", "ECONNRESET"))).toBe(true);
    expect(isConnectionReset(new Error("read tcp: connection reset by peer"))).toBe(true);
    expect(isConnectionReset(withCode("refused", "ECONNREFUSED"))).toBe(false);
  });

  it.each([
    ["reset", withCode("read ECONNRESET", "ECONNRESET")],
    ["undici socket closed", withCode("other side closed", "UND_ERR_SOCKET")],
    ["premature close", withCode("Premature close", "ERR_STREAM_PREMATURE_CLOSE")],
    ["Go io.EOF text", new Error("EOF")],
    ["Go io.ErrUnexpectedEOF text", new Error("unexpected EOF")],
    ["undici body terminated", new TypeError("terminated")],
    ["GOAWAY", new Error("http2: server sent GOAWAY and closed the connection; LastStreamID=1")],
    ["closed connection", new Error("read tcp 1.2.3.4: use of closed network connection")],
  ])("probable EOF: %s", (_name, err) => {
    expect(isProbableEOF(err)).toBe(true);
  });

  it.each([
    ["a decode error", new SyntaxError("Unexpected token } in JSON at position 3")],
    ["server text that merely contains EOF", new Error('configmaps "EOF-handler" not found')],
    ["server text that contains terminated", new Error("pod terminated by the kubelet")],
    ["a timeout (classified separately)", withCode("timeout", "UND_ERR_BODY_TIMEOUT")],
  ])("not a probable EOF: %s", (_name, err) => {
    expect(isProbableEOF(err)).toBe(false);
  });

  it("network timeouts: undici/Node codes and AbortSignal.timeout's TimeoutError", () => {
    expect(isNetworkTimeout(withCode("x", "UND_ERR_HEADERS_TIMEOUT"))).toBe(true);
    expect(isNetworkTimeout(withCode("x", "ETIMEDOUT"))).toBe(true);
    expect(
      isNetworkTimeout(Object.assign(new Error("The operation was aborted due to timeout"), { name: "TimeoutError" })),
    ).toBe(true);
    expect(isNetworkTimeout(withCode("x", "ECONNRESET"))).toBe(false);
  });
});
