import { createGunzip } from "node:zlib";
import type { Dispatcher } from "undici";
import { BodyBuffer } from "./body-buffer.js";
import type { WatchBody } from "./stream-watcher.js";
import type { ResponseHeaders } from "./with-retry.js";

/** An HTTP answer as the executor hands it to the verbs: status, headers and the unread body. */
export interface HttpResponse {
  readonly statusCode: number;
  readonly headers: ResponseHeaders;
  readonly body: Dispatcher.ResponseData["body"];
}

/** The first value of a response header (undici gives repeated headers as arrays). */
export function headerValue(headers: ResponseHeaders, name: string): string | undefined {
  const v = headers[name];
  return Array.isArray(v) ? v[0] : v;
}

function isGzip(res: HttpResponse): boolean {
  return headerValue(res.headers, "content-encoding")?.trim().toLowerCase() === "gzip";
}

function ignoreError(): void {}

/**
 * The response body as chunks, gunzipped as a stream when the server compressed it (client-go leaves this to Go's
 * `http.Transport`). Errors of a body nobody iterates are swallowed so that destroying it never becomes an
 * uncaught exception; iteration still reports them.
 */
export function decodedBody(res: HttpResponse): WatchBody {
  const body = res.body;
  body.on("error", ignoreError);
  if (!isGzip(res)) {
    return {
      [Symbol.asyncIterator]: () => body[Symbol.asyncIterator](),
      destroy: () => {
        body.destroy();
      },
    };
  }
  const gunzip = createGunzip();
  gunzip.on("error", ignoreError);
  body.on("error", (err) => gunzip.destroy(err));
  body.pipe(gunzip);
  return {
    [Symbol.asyncIterator]: () => gunzip[Symbol.asyncIterator](),
    destroy: () => {
      body.destroy();
      gunzip.destroy();
    },
  };
}

/** The body size announced by `Content-Length` for an uncompressed body, else undefined. */
function announcedLength(res: HttpResponse): number | undefined {
  if (isGzip(res)) return undefined;
  const v = headerValue(res.headers, "content-length");
  if (v === undefined) return undefined;
  const n = Number(v);
  return Number.isSafeInteger(n) && n >= 0 ? n : undefined;
}

/**
 * Reads a whole body as UTF-8 (gunzipping if needed), keeping at most `limit` bytes and draining the rest. Rejects
 * with `signal.reason` when `signal` aborts while reading.
 *
 * With a `Content-Length` (uncompressed bodies) every chunk is copied into one buffer of that size as it arrives
 * (see {@link BodyBuffer}), so the chunks are released at once and the body is held about twice at most (bytes,
 * then text; or, for a body past the 256 MiB up-front cap, the capped buffer and the full-size one during the
 * one copy) instead of three times (chunks, their concatenation, text) — a 100 MB LIST costs 100 MB less peak
 * memory. Without one, the chunks are decoded as they arrive.
 */
export async function readText(res: HttpResponse, limit: number, signal: AbortSignal | undefined): Promise<string> {
  const source = decodedBody(res);
  const body = new BodyBuffer(announcedLength(res), limit);
  const onAbort = () => source.destroy();
  signal?.addEventListener("abort", onAbort, { once: true });
  try {
    for await (const chunk of source) {
      if (!body.full) body.append(chunk);
    }
  } catch (err) {
    if (signal?.aborted) throw signal.reason;
    throw err;
  } finally {
    signal?.removeEventListener("abort", onAbort);
  }
  return body.text();
}

/** Drains a body so its connection can be reused (client-go `readAndCloseResponseBody`). */
export async function discard(body: HttpResponse["body"]): Promise<void> {
  try {
    await body.dump({ limit: 4096 });
  } catch {
    // The connection will be closed instead.
  }
}
