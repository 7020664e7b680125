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

/** Go's `encoding/json` escapes these even inside strings (HTML safety, JS line separators). */
function goJsonEscape(json: string): string {
  return json.replace(/[<>&\u2028\u2029]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`);
}

/** Encodes the token that resumes after `lastKey` (a full key under `prefix`): its start key is `lastKey + "\0"`. */
export function encodeContinue(lastKey: string, prefix: string, rv: number): string {
  return encodeContinueFrom(`${lastKey}\u0000`, prefix, rv);
}

/** Encodes a token that starts at `startKey` (a full key under `prefix`, inclusive), as given. */
export function encodeContinueFrom(startKey: string, prefix: string, rv: number): string {
  const start = startKey.slice(prefix.length);
  return Buffer.from(goJsonEscape(JSON.stringify({ v: "meta.k8s.io/v1", rv, start }))).toString("base64url");
}

const INVALID = "invalid continue token: continue key is not valid";

function invalid(detail: string): never {
  throw newBadRequest(`${INVALID}: ${detail}`);
}

/**
 * `base64.RawURLEncoding.DecodeString`: the URL alphabet without padding; CR and LF are skipped. Errors name the
 * byte offset as Go's `CorruptInputError` does.
 */
function decodeRawUrlBase64(s: string): Buffer {
  let inQuantum = 0;
  let kept = "";
  for (let i = 0; i < s.length; i++) {
    const c = s[i]!;
    if (c === "\n" || c === "\r") continue;
    if (!/[A-Za-z0-9_-]/.test(c)) invalid(`illegal base64 data at input byte ${i}`);
    kept += c;
    inQuantum = (inQuantum + 1) % 4;
  }
  if (inQuantum === 1) invalid(`illegal base64 data at input byte ${s.length - 1}`);
  return Buffer.from(kept, "base64url");
}

/** Go's `json.Unmarshal` message for the common ways a token's JSON is malformed. */
function goJsonSyntaxError(text: string, err: unknown): string {
  const first = text.trimStart()[0];
  if (first === undefined) return "unexpected end of JSON input";
  if (!/[{["\-0-9tfn]/.test(first)) return `invalid character '${first}' looking for beginning of value`;
  return err instanceof Error ? err.message : String(err);
}

function goJsonKind(v: unknown): string {
  if (Array.isArray(v)) return "array";
  if (typeof v === "object") return "object";
  if (typeof v === "boolean") return "bool";
  return typeof v; // "string" | "number"
}

/** The first `json: cannot unmarshal …` error decoding `value` into Go's `continueToken` struct, if any. */
function goTypeError(value: unknown): string | undefined {
  if (value === null) return undefined; // null into a struct is a no-op
  if (typeof value !== "object" || Array.isArray(value)) {
    return `json: cannot unmarshal ${goJsonKind(value)} into Go value of type storage.continueToken`;
  }
  const fields: Record<string, "string" | "int64"> = { v: "string", rv: "int64", start: "string" };
  for (const [k, v] of Object.entries(value)) {
    const want = fields[k];
    if (want === undefined || v === null) continue;
    const ok = want === "string" ? typeof v === "string" : typeof v === "number" && Number.isInteger(v);
    if (ok) continue;
    const what = typeof v === "number" ? `number ${v}` : goJsonKind(v);
    return `json: cannot unmarshal ${what} into Go struct field continueToken.${k} of type ${want}`;
  }
  return undefined;
}

/**
 * Decodes a token for a request whose key prefix is `prefix` (`storage.DecodeContinue`); returns the absolute start
 * key and the RV. A start key with a leading `/` is accepted (it is cleaned away), as upstream.
 *
 * @throws {StatusError} 400 `invalid continue token: continue key is not valid…` with upstream's detail: bad base64
 *   (`illegal base64 data at input byte N`), bad JSON, an unknown version (`server does not recognize this encoded
 *   version X`), a zero RV (`incorrect encoded start resourceVersion (version meta.k8s.io/v1)`), an empty start key
 *   (`encoded start key empty`) or a start key that is not in clean path form (`..`, `.`, `//`, trailing `/`).
 */
export function decodeContinue(token: string, prefix: string): { readonly fromKey: string; readonly rv: number } {
  const text = decodeRawUrlBase64(token).toString("utf8");
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (err) {
    invalid(goJsonSyntaxError(text, err));
  }
  const typeError = goTypeError(parsed);
  if (typeError !== undefined) invalid(typeError);
  const t = (parsed ?? {}) as { v?: string | null; rv?: number | null; start?: string | null };
  const version = t.v ?? "";
  if (version !== "meta.k8s.io/v1") {
    throw newBadRequest(`${INVALID}: server does not recognize this encoded version ${version}`);
  }
  const rv = t.rv ?? 0;
  if (rv === 0) invalid("incorrect encoded start resourceVersion (version meta.k8s.io/v1)");
  const start = t.start ?? "";
  if (start === "") invalid("encoded start key empty");
  // Path traversal guard (path.Clean must not change "/" + start): no empty, "." or ".." segments.
  const rooted = start.startsWith("/") ? start : `/${start}`;
  if (
    rooted !== "/" &&
    rooted
      .slice(1)
      .split("/")
      .some((s) => s === "" || s === "." || s === "..")
  )
    invalid(start);
  return { fromKey: prefix + rooted.slice(1), rv };
}
