import { newTooManyRequests } from "@informer-ts/apimachinery";
import type { HttpFault } from "./http-faults.js";

/** A connection-level failure of an in-process request or watch (what a reset TCP connection looks like). */
export class SimConnectionError extends Error {
  override readonly name = "SimConnectionError";
  readonly code = "ECONNRESET";
}

/**
 * The error an in-process request fails with under a request fault (what the HTTP face turns into a response):
 * APF's 429 with its Retry-After, the rule's error Status, or a {@link SimConnectionError} for a dropped connection.
 * `truncate-watch` is not an error here (the watch is wrapped instead).
 */
export function inProcessFault(f: HttpFault): Error {
  switch (f.type) {
    case "apf-429":
      return newTooManyRequests("Too many requests, please try again later.", f.retryAfterSeconds);
    case "status":
      return f.error instanceof Error ? f.error : new Error(String(f.error));
    case "drop-connection":
      return new SimConnectionError("connection dropped (fault)");
    default:
      return new Error(`unexpected fault ${f.type}`);
  }
}
