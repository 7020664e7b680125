import type { ServerResponse } from "node:http";
import { newInternalError, type Status, StatusError, statusOf } from "@informer-ts/apimachinery";
import { jsonOf } from "./encoding-cache.js";

/**
 * A Status in kube-apiserver's field order (kind, apiVersion, metadata, status, message, reason, details, code),
 * with absent fields omitted, ready for `JSON.stringify`.
 */
export function orderedStatus(s: Status): Status {
  const out: Status = { kind: "Status", apiVersion: "v1", metadata: s.metadata ?? {} };
  if (s.status !== undefined) out.status = s.status;
  if (s.message !== undefined) out.message = s.message;
  if (s.reason !== undefined && s.reason !== "") out.reason = s.reason;
  if (s.details !== undefined) {
    const d = s.details;
    const details: NonNullable<Status["details"]> = {};
    if (d.name !== undefined && d.name !== "") details.name = d.name;
    if (d.group !== undefined && d.group !== "") details.group = d.group;
    if (d.kind !== undefined && d.kind !== "") details.kind = d.kind;
    if (d.uid !== undefined && d.uid !== "") details.uid = d.uid;
    if (d.causes !== undefined && d.causes.length > 0) details.causes = d.causes;
    if (d.retryAfterSeconds !== undefined && d.retryAfterSeconds !== 0) details.retryAfterSeconds = d.retryAfterSeconds;
    out.details = details;
  }
  if (s.code !== undefined && s.code !== 0) out.code = s.code;
  return out;
}

/** Headers every API response carries, like kube-apiserver's (`Cache-Control: no-cache, private`). */
export function commonHeaders(res: ServerResponse): void {
  if (!res.headersSent) res.setHeader("Cache-Control", "no-cache, private");
}

/**
 * Writes `body` as `application/json` with a trailing newline (Go's `json.Encoder`), with `Content-Length`.
 * Does nothing if the response already started.
 */
export function writeJson(
  res: ServerResponse,
  code: number,
  body: unknown,
  headers: Record<string, string> = {},
): void {
  if (res.headersSent || res.writableEnded) return;
  const bytes = Buffer.from(jsonOf(body) + "\n", "utf8");
  commonHeaders(res);
  res.writeHead(code, { ...headers, "Content-Type": "application/json", "Content-Length": String(bytes.length) });
  res.end(bytes);
}

/** Lists with more items than this are streamed (chunked, item by item) rather than encoded whole. */
export const STREAMED_LIST_MIN_ITEMS = 500;
/** Size of the chunks a streamed list is written in (an item larger than this is one chunk). */
const LIST_CHUNK_BYTES = 64 * 1024;
const LIST_CLOSING = "]}\n";

/** An array element as `JSON.stringify` writes it (`null` for `undefined` or a function); cached for engine objects. */
function itemJson(value: unknown): string {
  return (jsonOf(value) as string | undefined) ?? "null";
}

/** `{…head fields…,"items":[` of a list whose `items` come last. */
function listOpening(list: Record<string, unknown>): string {
  const { items: _items, ...head } = list;
  return `${JSON.stringify(head).slice(0, -1)}${Object.keys(head).length > 0 ? "," : ""}"items":[`;
}

/**
 * Writes a 200 list body. Small lists are one body with `Content-Length`; larger ones are encoded item by item into
 * ~64 KiB chunks with `Transfer-Encoding: chunked`, honouring back-pressure, as kube-apiserver's streaming collection
 * encoder (StreamingCollectionsEncodingToJSON, on by default since v1.33) does: the first byte leaves before the last
 * item is encoded and the server never holds the whole body. Either way the items' cached JSON strings are reused
 * (`encoding-cache.ts`) and joined, and each chunk is UTF-8-encoded once: no bytes are kept per item, so a kind of
 * view listed for the first time (a `PartialObjectMetadataList`) costs one `JSON.stringify` per item and nothing
 * more. The bytes are the same as `JSON.stringify(list)` plus `\n` (keys in the order kind, apiVersion, metadata,
 * items). Resolves when the body is written or the client went away.
 */
export async function writeJsonList(res: ServerResponse, list: Record<string, unknown>): Promise<void> {
  const items = list.items;
  if (!Array.isArray(items)) {
    writeJson(res, 200, list);
    return;
  }
  if (items.length <= STREAMED_LIST_MIN_ITEMS) {
    if (res.headersSent || res.writableEnded) return;
    const keys = Object.keys(list);
    if (keys[keys.length - 1] !== "items") {
      writeJson(res, 200, list); // another key order: keep it
      return;
    }
    let text = listOpening(list);
    for (let i = 0; i < items.length; i++) text += i > 0 ? `,${itemJson(items[i])}` : itemJson(items[i]);
    const body = Buffer.from(text + LIST_CLOSING, "utf8");
    commonHeaders(res);
    res.writeHead(200, { "Content-Type": "application/json", "Content-Length": String(body.length) });
    res.end(body);
    return;
  }
  if (res.headersSent || res.writableEnded) return;
  commonHeaders(res);
  res.writeHead(200, { "Content-Type": "application/json" });
  // `chunk.length` counts UTF-16 units, not bytes: chunks are ~64 Ki characters, which is all the size is for.
  let chunk = listOpening(list);
  for (let i = 0; i < items.length; i++) {
    chunk += i > 0 ? `,${itemJson(items[i])}` : itemJson(items[i]);
    if (chunk.length < LIST_CHUNK_BYTES) continue;
    if (res.destroyed) return;
    const ok = res.write(Buffer.from(chunk, "utf8"));
    chunk = "";
    if (!ok) {
      await new Promise<void>((resolve) => {
        const done = () => {
          res.off("drain", done);
          res.off("close", done);
          resolve();
        };
        res.on("drain", done);
        res.on("close", done);
      });
    }
  }
  if (!res.destroyed) res.end(Buffer.from(chunk + LIST_CLOSING, "utf8"));
}

/**
 * Turns anything thrown by a handler into a Status (`responsewriters.ErrorNegotiated`): a StatusError's own Status,
 * else 500 `Internal error occurred: <message>`.
 */
export function statusForError(err: unknown): Status {
  const s = statusOf(err);
  if (s !== undefined) return s;
  const msg = err instanceof Error ? err.message : String(err);
  return newInternalError(msg).status;
}

/**
 * Writes an error response: the Status as JSON with HTTP code `status.code` (500 when absent), and
 * `Retry-After: <n>` whenever `details.retryAfterSeconds > 0` (`responsewriters.ErrorNegotiated`).
 */
export function writeStatus(res: ServerResponse, err: unknown): void {
  const status = orderedStatus(statusForError(err));
  const headers: Record<string, string> = {};
  const retry = status.details?.retryAfterSeconds;
  if (retry !== undefined && retry > 0) headers["Retry-After"] = String(retry);
  writeJson(res, status.code !== undefined && status.code > 0 ? status.code : 500, status, headers);
}

/**
 * The API Priority and Fairness rejection (`priority-and-fairness.go` `tooManyRequests`): 429, `Retry-After`,
 * `text/plain` body `Too many requests, please try again later.` — not a Status.
 */
export function writeApfTooManyRequests(res: ServerResponse, retryAfterSeconds: number): void {
  if (res.headersSent || res.writableEnded) return;
  const text = "Too many requests, please try again later.\n";
  res.writeHead(429, {
    "Retry-After": String(retryAfterSeconds),
    "Content-Type": "text/plain; charset=utf-8",
    "X-Content-Type-Options": "nosniff",
    "Content-Length": String(Buffer.byteLength(text)),
  });
  res.end(text);
}

/** Go's `http.NotFound` (paths outside every API prefix): 404 `text/plain` `404 page not found`. */
export function writePlainNotFound(res: ServerResponse): void {
  if (res.headersSent || res.writableEnded) return;
  const text = "404 page not found\n";
  res.writeHead(404, {
    "Content-Type": "text/plain; charset=utf-8",
    "X-Content-Type-Options": "nosniff",
    "Content-Length": String(Buffer.byteLength(text)),
  });
  res.end(text);
}

/** Plain-text 200 (health endpoints answer `ok`). */
export function writeText(res: ServerResponse, code: number, text: string, contentType = "text/plain; charset=utf-8") {
  if (res.headersSent || res.writableEnded) return;
  res.writeHead(code, {
    "Content-Type": contentType,
    "X-Content-Type-Options": "nosniff",
    "Content-Length": String(Buffer.byteLength(text)),
  });
  res.end(text);
}

/** 404 with kube-apiserver's generic body for an unknown path under a served API prefix. */
export function genericNotFound(): StatusError {
  return new StatusError({
    kind: "Status",
    apiVersion: "v1",
    metadata: {},
    status: "Failure",
    message: "the server could not find the requested resource",
    reason: "NotFound",
    details: {},
    code: 404,
  });
}

/** 405 with kube-apiserver's generic body (go-restful matched the path but not the method). */
export function genericMethodNotAllowed(): StatusError {
  return new StatusError({
    kind: "Status",
    apiVersion: "v1",
    metadata: {},
    status: "Failure",
    message: "the server does not allow this method on the requested resource",
    reason: "MethodNotAllowed",
    details: {},
    code: 405,
  });
}
