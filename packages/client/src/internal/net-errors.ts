// Classification of transport errors (k8s.io/apimachinery/pkg/util/net) for Node and undici errors.

function errorCode(err: unknown): unknown {
  return typeof err === "object" && err !== null ? (err as { code?: unknown }).code : undefined;
}

/** Walks `err`, its `cause` chain and `AggregateError.errors` (depth-limited) until `test` matches. */
function someError(err: unknown, test: (e: unknown) => boolean, depth = 0): boolean {
  if (err === undefined || err === null || depth > 8) return false;
  if (test(err)) return true;
  if (typeof err !== "object") return false;
  const e = err as { cause?: unknown; errors?: unknown };
  if (someError(e.cause, test, depth + 1)) return true;
  if (Array.isArray(e.errors)) return e.errors.some((inner) => someError(inner, test, depth + 1));
  return false;
}

function messageOf(e: unknown): string {
  return e instanceof Error ? e.message : typeof e === "string" ? e : "";
}

/** `net.IsConnectionReset`: ECONNRESET anywhere in the chain. */
export function isConnectionReset(err: unknown): boolean {
  return someError(err, (e) => errorCode(e) === "ECONNRESET" || messageOf(e).includes("connection reset by peer"));
}

const EOF_CODES = new Set(["ECONNRESET", "EPIPE", "UND_ERR_SOCKET", "UND_ERR_CLOSED", "ERR_STREAM_PREMATURE_CLOSE"]);
const EOF_MESSAGES = ["other side closed", "socket hang up", "broken pipe", "use of closed network connection"];

/**
 * `net.IsProbableEOF`: the connection ended underneath the request (reset, closed by the peer, broken pipe)
 * rather than the server answering something.
 */
export function isProbableEOF(err: unknown): boolean {
  return someError(err, (e) => {
    const code = errorCode(e);
    if (typeof code === "string" && EOF_CODES.has(code)) return true;
    const m = messageOf(e);
    return EOF_MESSAGES.some((s) => m.includes(s));
  });
}

const TIMEOUT_CODES = new Set([
  "ETIMEDOUT",
  "UND_ERR_CONNECT_TIMEOUT",
  "UND_ERR_HEADERS_TIMEOUT",
  "UND_ERR_BODY_TIMEOUT",
]);

/** `net.IsTimeout`: a connect, headers or body timeout. */
export function isTimeout(err: unknown): boolean {
  return someError(err, (e) => {
    const code = errorCode(e);
    return typeof code === "string" && TIMEOUT_CODES.has(code);
  });
}
