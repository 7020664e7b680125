import type { ServerResponse } from "node:http";
import { newInternalError, type Status, StatusError, statusOf } from "@informer-ts/apimachinery";
import { jsonBytesOf, jsonOf } from "./encoding-cache.js";

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
const COMMA = Buffer.from(",");
const LIST_CLOSING = Buffer.from("]}\n");

/** `{…head fields…,"items":[` of a list whose `items` come last. */
function listOpening(list: Record<string, unknown>): Buffer {
  const { items: _items, ...head } = list;
  return Buffer.from(`${JSON.stringify(head).slice(0, -1)}${Object.keys(head).length > 0 ? "," : ""}"items":[`, "utf8");
}

/**
 * Writes a 200 list body. Small lists are one body with `Content-Length`; larger ones are encoded item by item into
 * ~64 KiB chunks with `Transfer-Encoding: chunked`, honouring back-pressure, as kube-apiserver's streaming collection
 * encoder (StreamingCollectionsEncodingToJSON, on by default since v1.33) does: the first byte leaves before the last
 * item is encoded and the server never holds the whole body. Either way the items' cached encodings are reused
 * (`encoding-cache.ts`) and the bytes are the same as `JSON.stringify(list)` plus `\n` (keys in the order kind,
 * apiVersion, metadata, items). Resolves when the body is written or the client went away.
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
    const parts: Buffer[] = [listOpening(list)];
    for (let i = 0; i < items.length; i++) {
      if (i > 0) parts.push(COMMA);
      parts.push(jsonBytesOf(items[i]));
    }
    parts.push(LIST_CLOSING);
    const body = Buffer.concat(parts);
    commonHeaders(res);
    res.writeHead(200, { "Content-Type": "application/json", "Content-Length": String(body.length) });
    res.end(body);
    return;
  }
  if (res.headersSent || res.writableEnded) return;
  commonHeaders(res);
  res.writeHead(200, { "Content-Type": "application/json" });
  let parts: Buffer[] = [listOpening(list)];
  let size = parts[0]!.length;
  for (let i = 0; i < items.length; i++) {
    const bytes = jsonBytesOf(items[i]);
    if (i > 0) parts.push(COMMA);
    parts.push(bytes);
    size += bytes.length + (i > 0 ? 1 : 0);
    if (size < LIST_CHUNK_BYTES) continue;
    if (res.destroyed) return;
    // A fresh chunk every time: the cached encodings themselves are never handed out.
    const ok = res.write(Buffer.concat(parts, size));
    parts = [];
    size = 0;
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
  parts.push(LIST_CLOSING);
  if (!res.destroyed) res.end(Buffer.concat(parts, size + LIST_CLOSING.length));
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
