import { newBadRequest } from "@informer-ts/apimachinery";

/**
 * Continue tokens in kube-apiserver's format (`storage.EncodeContinue`): unpadded base64url of
 * `{"v":"meta.k8s.io/v1","rv":<list RV>,"start":"<next key relative to the list's key prefix>\u0000"}`.
 * `rv: -1` marks an inconsistent continuation ("continue at the latest revision") handed out with a 410.
 */
export interface ContinueToken {
  /** RV the first page was served at; -1 = latest. */
  readonly rv: number;
  /** Key (relative to the request's prefix) to start at, inclusive. */
  readonly start: string;
}

/** Encodes the token that resumes after `lastKey` (a full key under `prefix`). */
export function encodeContinue(lastKey: string, prefix: string, rv: number): string {
  const start = `${lastKey.slice(prefix.length)}\u0000`;
  return Buffer.from(JSON.stringify({ v: "meta.k8s.io/v1", rv, start })).toString("base64url");
}

function invalid(detail?: string): never {
  throw newBadRequest(`invalid continue token: continue key is not valid${detail === undefined ? "" : `: ${detail}`}`);
}

/**
 * Decodes a token for a request whose key prefix is `prefix`; returns the absolute start key and the RV.
 *
 * @throws {StatusError} 400 `invalid continue token: continue key is not valid…` for anything malformed, a zero RV,
 *   an empty start key, a start key that would escape the prefix (`..`, `//`) or an unknown token version.
 */
export function decodeContinue(token: string, prefix: string): { readonly fromKey: string; readonly rv: number } {
  if (!/^[A-Za-z0-9_-]*$/.test(token) || token.length % 4 === 1) invalid("illegal base64 data");
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.from(token, "base64url").toString("utf8"));
  } catch (err) {
    invalid(err instanceof Error ? err.message : String(err));
  }
  if (typeof parsed !== "object" || parsed === null) invalid("not a JSON object");
  const t = parsed as { v?: unknown; rv?: unknown; start?: unknown };
  if (t.v !== "meta.k8s.io/v1") invalid(`server does not recognize this encoded version ${JSON.stringify(t.v)}`);
  if (typeof t.rv !== "number" || !Number.isInteger(t.rv) || t.rv === 0) {
    throw newBadRequest(
      "invalid continue token: continue key is not valid: incorrect encoded start resourceVersion (version meta.k8s.io/v1)",
    );
  }
  if (typeof t.start !== "string" || t.start === "") {
    throw newBadRequest("invalid continue token: continue key is not valid: encoded start key empty");
  }
  // Path traversal guard: the start key must already be in clean form (no "..", ".", empty segments).
  const segments = t.start.split("/");
  if (t.start.startsWith("/") || segments.some((s) => s === "" || s === "." || s === "..")) invalid(t.start);
  return { fromKey: prefix + t.start, rv: t.rv };
}
