import type { KubeObject, Status, WatchEvent } from "@informer-ts/apimachinery";
import { parseWithoutManagedFields } from "./managed-fields-skip.js";

/** How much of a bad line {@link WatchDecodeError.excerpt} keeps. */
export const WATCH_DECODE_EXCERPT_CHARS = 200;

/** Default {@link WatchDecoderOptions.maxLineBytes}: 128 MiB, far above any object etcd accepts (1.5 MiB). */
export const DEFAULT_MAX_WATCH_LINE_BYTES = 128 * 1024 * 1024;

/** Why a watch line could not be decoded. */
export type WatchDecodeErrorKind =
  /** The line is not JSON. */
  | "malformed-json"
  /** JSON, but not `{"type": ADDED|MODIFIED|DELETED|BOOKMARK|ERROR, "object": {…}}`. */
  | "invalid-event"
  /** The stream ended in the middle of a line that is not complete JSON. */
  | "truncated"
  /** A line grew past {@link WatchDecoderOptions.maxLineBytes} without a newline. */
  | "line-too-long";

/**
 * A watch stream carried something that is not a watch event. `offset` is the byte offset in the (decompressed)
 * stream where the bad line starts; `excerpt` holds its first ~200 characters. The message names the kind and
 * offset but deliberately not the excerpt: server data must not be mistaken for a transport error by code that
 * classifies errors by message.
 *
 * client-go's `StreamWatcher` turns such failures into an ERROR event with a 500 `ClientWatchDecoding` Status;
 * here iteration throws this error instead (the `Watch` contract), and the reflector maps it to that 500.
 */
export class WatchDecodeError extends Error {
  override readonly name = "WatchDecodeError";

  constructor(
    readonly kind: WatchDecodeErrorKind,
    /** Byte offset of the start of the bad line. */
    readonly offset: number,
    /** First {@link WATCH_DECODE_EXCERPT_CHARS} characters of the line. */
    readonly excerpt: string,
    /** Bytes in the line (for `line-too-long`: as far as it was read, more than the limit; depends on chunking). */
    readonly lineBytes: number,
    detail: string,
  ) {
    super(`watch stream: ${kind} at byte offset ${offset} (${lineBytes} bytes): ${detail}`);
  }
}

/** Options of {@link decodeWatchStream}. */
export interface WatchDecoderOptions {
  /** A longer line fails with `line-too-long` instead of growing memory without bound. */
  readonly maxLineBytes?: number;
  /**
   * Leave every event object's `metadata.managedFields` out while decoding (default false): each line's
   * `"managedFields":[…]` members are cut from its text before `JSON.parse` (`managed-fields-skip.ts`), as a metadata
   * LIST does with `MetadataDecodeOptions.dropManagedFields`. A line the cut does not recognise is parsed whole; a line that
   * is not JSON outside its `managedFields` fails as it would without the option (the error's position is the
   * uncut line's).
   */
  readonly dropManagedFields?: boolean;
}

const EVENT_TYPES = new Set(["ADDED", "MODIFIED", "DELETED", "BOOKMARK", "ERROR"]);

function excerptOf(text: string): string {
  return text.length > WATCH_DECODE_EXCERPT_CHARS ? text.slice(0, WATCH_DECODE_EXCERPT_CHARS) : text;
}

/** Whether `buf[from, to)` holds only JSON whitespace. */
function isBlank(buf: Uint8Array, from: number, to: number): boolean {
  for (let i = from; i < to; i++) {
    const b = buf[i];
    if (b !== 0x20 && b !== 0x09 && b !== 0x0d && b !== 0x0a) return false;
  }
  return true;
}

/**
 * A description of a JSON.parse failure without the input snippet V8 puts into its message (server data must
 * not leak into the error message).
 */
function jsonErrorDetail(err: unknown): string {
  const message = err instanceof Error ? err.message : "";
  const pos = /at position (\d+)/.exec(message)?.[1];
  if (pos !== undefined) return `invalid JSON at position ${pos}`;
  if (message.includes("end of JSON input")) return "the JSON value is incomplete";
  return "invalid JSON";
}

/**
 * Decodes one complete line, `buf[from, to)` (a range, so no Buffer view is made per line); `undefined` for a
 * blank line. Throws {@link WatchDecodeError}.
 */
function decodeLine<T>(
  buf: Buffer,
  from: number,
  to: number,
  offset: number,
  atEnd: boolean,
  parse: ((text: string) => unknown) | undefined,
): WatchEvent<T> | undefined {
  if (isBlank(buf, from, to)) return undefined;
  const text = buf.toString("utf8", from, to);
  const lineBytes = to - from;
  let parsed: unknown;
  try {
    parsed = parse === undefined ? JSON.parse(text) : parse(text);
  } catch (err) {
    const detail = jsonErrorDetail(err);
    if (atEnd) {
      throw new WatchDecodeError(
        "truncated",
        offset,
        excerptOf(text),
        lineBytes,
        `the stream closed inside an event without a trailing newline (${detail})`,
      );
    }
    throw new WatchDecodeError("malformed-json", offset, excerptOf(text), lineBytes, detail);
  }
  if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed)) {
    throw new WatchDecodeError("invalid-event", offset, excerptOf(text), lineBytes, "a watch event must be an object");
  }
  const { type, object } = parsed as { type?: unknown; object?: unknown };
  if (typeof type !== "string" || !EVENT_TYPES.has(type)) {
    throw new WatchDecodeError(
      "invalid-event",
      offset,
      excerptOf(text),
      lineBytes,
      `got invalid watch event type: ${JSON.stringify(type) ?? "undefined"}`,
    );
  }
  if (typeof object !== "object" || object === null || Array.isArray(object)) {
    throw new WatchDecodeError("invalid-event", offset, excerptOf(text), lineBytes, `the ${type} event has no object`);
  }
  if (type === "ERROR") {
    // Old servers sent the Status without kind/apiVersion; the decoder knows it is one.
    const status = object as Partial<Status>;
    const normalized: Status = { ...status, kind: "Status", apiVersion: "v1", metadata: status.metadata ?? {} };
    return { type: "ERROR", object: normalized };
  }
  return { type: type as "ADDED" | "MODIFIED" | "DELETED" | "BOOKMARK", object: object as T };
}

function toBuffer(chunk: Uint8Array | string): Buffer {
  if (typeof chunk === "string") return Buffer.from(chunk, "utf8");
  return Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength);
}

/**
 * Decodes a newline-delimited JSON watch stream (`application/json` watch framing: one `metav1.WatchEvent` per
 * line) into events, pulling the next chunk only when the consumer asks for the next event.
 *
 * Guarantees:
 * - Memory is bounded by one line plus one chunk: the body is never buffered whole, and bytes are released as
 *   soon as their line is decoded.
 * - Lines split across chunks, and multi-byte UTF-8 characters split across chunks, decode exactly as if the
 *   stream arrived in one piece (lines are cut on the `\n` byte and decoded as a whole).
 * - Blank lines and a `\r` before `\n` are ignored.
 * - A line that is not a watch event throws {@link WatchDecodeError} (`malformed-json` / `invalid-event`),
 *   never another exception; events before it are delivered first.
 * - A line longer than `maxLineBytes` (not counting its `\n`) throws a `line-too-long` {@link WatchDecodeError},
 *   whether or not it is split across chunks, with the same offset and excerpt either way (the excerpt comes
 *   from the line's first `maxLineBytes + 1` bytes at most); only `lineBytes` (how far the line was read) may
 *   differ.
 * - At the end of the stream, a last line without `\n` is decoded when it is complete JSON, and throws a
 *   `truncated` {@link WatchDecodeError} otherwise (it is never dropped silently).
 * - ERROR events are delivered as events carrying the server's Status (kind/apiVersion filled in if missing).
 * - A transport error of `source` is re-thrown unchanged.
 *
 * Differences from client-go: client-go frames with a streaming JSON decoder, so it also accepts several JSON
 * values on one line, and treats a truncated last value as `io.ErrUnexpectedEOF` (a normal end of the watch).
 */
export async function* decodeWatchStream<T = KubeObject>(
  source: AsyncIterable<Uint8Array | string>,
  options: WatchDecoderOptions = {},
): AsyncGenerator<WatchEvent<T>, void, undefined> {
  for await (const batch of decodeWatchBatches<T>(source, options)) yield* batch;
}

/**
 * {@link decodeWatchStream} a chunk at a time: each result holds every event whose line ends in one chunk of
 * `source` (never an empty array), decoded in one pass over the chunk, so a consumer pays one pull per chunk
 * instead of one per event. The guarantees of {@link decodeWatchStream} hold: a bad line throws its
 * {@link WatchDecodeError} after the events before it in the same chunk were yielded as a batch of their own, and
 * the next chunk is read only when the consumer asks for the next batch.
 */
export async function* decodeWatchBatches<T = KubeObject>(
  source: AsyncIterable<Uint8Array | string>,
  options: WatchDecoderOptions = {},
): AsyncGenerator<WatchEvent<T>[], void, undefined> {
  const maxLineBytes = options.maxLineBytes ?? DEFAULT_MAX_WATCH_LINE_BYTES;
  const parse = options.dropManagedFields === true ? parseWithoutManagedFields : undefined;
  let pending: Buffer[] = [];
  let pendingBytes = 0;
  /** Stream offset of the first byte of the current chunk. */
  let chunkOffset = 0;
  /** Stream offset where the line being assembled starts. */
  let lineStart = 0;

  // The excerpt of a too-long line comes from its first maxLineBytes + 1 bytes at most: that much of the line has
  // been read whichever way the stream was chunked, so the error does not depend on the chunking.
  const excerptBytes = Math.min(maxLineBytes + 1, WATCH_DECODE_EXCERPT_CHARS * 4);
  /** The error for the line in `pending` followed by `extra`, which together exceed `maxLineBytes`. */
  const tooLong = (extra: Buffer): WatchDecodeError => {
    const head: Buffer[] = [];
    let headBytes = 0;
    for (const piece of [...pending.slice(0, excerptBytes), extra]) {
      if (headBytes >= excerptBytes) break;
      const take = piece.subarray(0, excerptBytes - headBytes);
      head.push(take);
      headBytes += take.length;
    }
    const text = Buffer.concat(head, headBytes).toString("utf8");
    return new WatchDecodeError(
      "line-too-long",
      lineStart,
      excerptOf(text),
      pendingBytes + extra.length,
      `no newline within ${maxLineBytes} bytes`,
    );
  };

  for await (const raw of source) {
    const chunk = toBuffer(raw);
    const batch: WatchEvent<T>[] = [];
    let failure: WatchDecodeError | undefined;
    let pos = 0;
    try {
      while (pos < chunk.length) {
        const nl = chunk.indexOf(0x0a, pos);
        if (nl === -1) {
          const part = chunk.subarray(pos);
          if (pendingBytes + part.length > maxLineBytes) throw tooLong(part);
          pending.push(part);
          pendingBytes += part.length;
          break;
        }
        const start = lineStart;
        let event: WatchEvent<T> | undefined;
        if (pending.length === 0) {
          // The whole line is in this chunk; it must still respect the limit, as it would if it were split.
          if (nl - pos > maxLineBytes) throw tooLong(chunk.subarray(pos, nl));
          event = decodeLine<T>(chunk, pos, nl, start, false, parse);
        } else {
          const part = chunk.subarray(pos, nl);
          if (pendingBytes + part.length > maxLineBytes) throw tooLong(part);
          pending.push(part);
          const line = Buffer.concat(pending, pendingBytes + part.length);
          pending = [];
          pendingBytes = 0;
          event = decodeLine<T>(line, 0, line.length, start, false, parse);
        }
        lineStart = chunkOffset + nl + 1;
        pos = nl + 1;
        if (event !== undefined) batch.push(event);
      }
    } catch (err) {
      // Only decodeLine and tooLong throw here, always a WatchDecodeError: the events before the bad line go first.
      failure = err as WatchDecodeError;
    }
    if (batch.length > 0) yield batch;
    if (failure !== undefined) throw failure;
    chunkOffset += chunk.length;
  }
  if (pendingBytes > 0) {
    const line = Buffer.concat(pending, pendingBytes);
    pending = [];
    pendingBytes = 0;
    const event = decodeLine<T>(line, 0, line.length, lineStart, true, parse);
    if (event !== undefined) yield [event];
  }
}
