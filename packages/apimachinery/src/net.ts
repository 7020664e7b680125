// Transport-error classification (k8s.io/apimachinery/pkg/util/net) for the errors Node's `net`/`http` and undici
// produce. Shared by the client (which retries on them) and the reflector (which ends a watch quietly on them).

function errorCode(err: unknown): unknown {
  return typeof err === "object" && err !== null ? (err as { code?: unknown }).code : undefined;
}

function messageOf(e: unknown): string {
  return e instanceof Error ? e.message : typeof e === "string" ? e : "";
}

/**
 * True when `test` matches `err`, an error in its `cause` chain, or one of an `AggregateError`'s `errors` (undici's
 * `fetch failed` wraps the socket error in `cause`; a failed happy-eyeballs connect is an `AggregateError`).
 * Depth-limited, so a cyclic chain cannot loop.
 */
export function anyErrorInChain(err: unknown, test: (e: unknown) => boolean, depth = 0): boolean {
  if (err === undefined || err === null || depth > 8) return false;
  if (test(err)) return true;
  if (typeof err !== "object") return false;
  const e = err as { cause?: unknown; errors?: unknown };
  if (anyErrorInChain(e.cause, test, depth + 1)) return true;
  if (Array.isArray(e.errors)) return e.errors.some((inner) => anyErrorInChain(inner, test, depth + 1));
  return false;
}

/** The first string `code` (`ECONNREFUSED`, `UND_ERR_SOCKET`…) in the error chain, if any. */
export function errnoOf(err: unknown): string | undefined {
  let found: string | undefined;
  anyErrorInChain(err, (e) => {
    const c = errorCode(e);
    if (typeof c !== "string") return false;
    found = c;
    return true;
  });
  return found;
}

/** `net.IsConnectionRefused`: `ECONNREFUSED` anywhere in the chain. */
export function isConnectionRefused(err: unknown): boolean {
  return anyErrorInChain(err, (e) => errorCode(e) === "ECONNREFUSED");
}

/** `net.IsConnectionReset`: `ECONNRESET` (or Go's "connection reset by peer" text) anywhere in the chain. */
export function isConnectionReset(err: unknown): boolean {
  return anyErrorInChain(
    err,
    (e) => errorCode(e) === "ECONNRESET" || messageOf(e).includes("connection reset by peer"),
  );
}

const PROBABLE_EOF_CODES = new Set([
  "ECONNRESET",
  "EPIPE",
  "ECONNABORTED",
  "ERR_STREAM_PREMATURE_CLOSE",
  "UND_ERR_SOCKET",
  "UND_ERR_CLOSED",
]);
/** Whole messages that mean "the stream ended": Go's `io.EOF` texts and undici's body `terminated`. */
const PROBABLE_EOF_EXACT = new Set(["EOF", "unexpected EOF", "terminated", "socket hang up", "other side closed"]);
/** Substrings upstream matches (Go's net/http texts; they name the transport, not server data). */
const PROBABLE_EOF_SUBSTRINGS = [
  "connection reset by peer",
  "use of closed network connection",
  "http2: server sent GOAWAY and closed the connection",
  "can't write HTTP request on broken connection",
  "broken pipe",
];

/**
 * `net.IsProbableEOF`: the connection ended underneath the request (reset, closed by the peer, broken pipe, a body
 * cut short) rather than the server answering something. Node error codes decide first; messages are matched
 * whole ("EOF", "terminated"…) or by the transport phrases upstream matches, never by a bare substring like "EOF"
 * that text from a server could contain.
 */
export function isProbableEOF(err: unknown): boolean {
  return anyErrorInChain(err, (e) => {
    const code = errorCode(e);
    if (typeof code === "string" && PROBABLE_EOF_CODES.has(code)) return true;
    const m = messageOf(e);
    return PROBABLE_EOF_EXACT.has(m) || PROBABLE_EOF_SUBSTRINGS.some((s) => m.includes(s));
  });
}

const TIMEOUT_CODES = new Set([
  "ETIMEDOUT",
  "UND_ERR_CONNECT_TIMEOUT",
  "UND_ERR_HEADERS_TIMEOUT",
  "UND_ERR_BODY_TIMEOUT",
]);

/**
 * `net.IsTimeout` (named apart from `errors.IsTimeout`, the 504 Status predicate `isTimeout`): a connect, headers or
 * body timeout of the transport, or an `AbortSignal.timeout` firing (`TimeoutError`).
 */
export function isNetworkTimeout(err: unknown): boolean {
  return anyErrorInChain(err, (e) => {
    const code = errorCode(e);
    if (typeof code === "string" && TIMEOUT_CODES.has(code)) return true;
    return typeof e === "object" && e !== null && (e as { name?: unknown }).name === "TimeoutError";
  });
}
