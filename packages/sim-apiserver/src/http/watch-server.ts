import type { ServerResponse } from "node:http";
import type { KubeObject, WatchEvent } from "@informer-ts/apimachinery";
import { jsonByteLengthOf, jsonOf } from "./encoding-cache.js";
import type { OutputMediaType } from "./negotiation.js";
import { asPartialObjectMetadata, type IncludeObjectPolicy, objectToTable, type TablePrinter } from "./table.js";

/** The event source a watch response drains: the engine's watch, seen as an async iterator. */
export interface WatchStreamSource {
  /** Next event; `done` when the engine closed the watch (timeout, slow-watcher kill, re-initialization). */
  next(): Promise<IteratorResult<WatchEvent>>;
  /** Stops the engine watch (client went away). Idempotent; a pending `next()` must then settle with `done`. */
  stop(): void;
}

/** How {@link serveWatch} encodes and frames events. */
export interface WatchServeOptions {
  readonly output: OutputMediaType;
  readonly printer: TablePrinter;
  readonly includeObject?: IncludeObjectPolicy;
  /** Current time for Table `Age` cells. */
  readonly now: () => number;
  /**
   * Fault: after this many events, write the first half of the next event's line and end the response (the
   * chunked body ends cleanly after a partial JSON line).
   */
  readonly truncateAfterEvents?: number;
  /** Called once per event written (bytes of the line). */
  readonly onEvent?: (event: WatchEvent, bytes: number) => void;
  /** Called with true when the writer starts waiting for `drain` (socket full), false when it resumes. */
  readonly onBlocked?: (blocked: boolean) => void;
}

/** Why {@link serveWatch} ended. */
export type WatchStreamEndReason = "engine-closed" | "client-gone" | "truncated" | "write-error";

/** One encoded event line and its UTF-8 length. */
interface EventLine {
  readonly line: string;
  readonly bytes: number;
}

// Serialized JSON lines by event, so an event object shared by many watchers is encoded once (kube-apiserver's
// CacheableObject does the same). Weak: a line lives only as long as the engine keeps the event. The object inside
// is encoded once too (`encoding-cache.ts`): the initial events a watch-list or RV=0 watch gets are new event
// objects for every watcher, but their objects are the stored ones.
const jsonLines = new WeakMap<object, EventLine>();

/** `JSON.stringify(ev) + "\n"` and its UTF-8 length, from the object's cached encoding when it has one. */
function jsonLine(ev: WatchEvent): EventLine {
  const keys = Object.keys(ev);
  const plain = keys.length === 2 && keys[0] === "type" && keys[1] === "object";
  if (plain && typeof ev.type === "string" && typeof ev.object === "object" && ev.object !== null) {
    const head = `{"type":${JSON.stringify(ev.type)},"object":`;
    return {
      line: `${head}${jsonOf(ev.object)}}\n`,
      bytes: Buffer.byteLength(head) + jsonByteLengthOf(ev.object) + 2,
    };
  }
  const line = JSON.stringify(ev) + "\n";
  return { line, bytes: Buffer.byteLength(line) };
}

function encodeEvent(ev: WatchEvent, opts: WatchServeOptions, first: boolean): EventLine {
  const out = opts.output;
  if (ev.type === "ERROR" || out.kind === "json") {
    let line = jsonLines.get(ev);
    if (line === undefined) {
      line = jsonLine(ev);
      jsonLines.set(ev, line);
    }
    return line;
  }
  let object: unknown = ev.object;
  if (out.kind === "table") {
    object = objectToTable(ev.object as KubeObject, opts.printer, {
      apiVersion: out.apiVersion,
      noHeaders: !first,
      ...(opts.includeObject !== undefined && { includeObject: opts.includeObject }),
      now: opts.now(),
    });
  } else if (out.kind === "partial") {
    // A stored object's metadata view and its JSON are made once (`asPartialObjectMetadata`, `encoding-cache.ts`).
    const view = asPartialObjectMetadata(ev.object as KubeObject, out.apiVersion);
    const head = `{"type":${JSON.stringify(ev.type)},"object":`;
    return { line: `${head}${jsonOf(view)}}\n`, bytes: Buffer.byteLength(head) + jsonByteLengthOf(view) + 2 };
  }
  const line = JSON.stringify({ type: ev.type, object }) + "\n";
  return { line, bytes: Buffer.byteLength(line) };
}

/**
 * Streams a watch (`WatchServer.HandleHTTP`): `200`, `Content-Type: application/json`, chunked, headers flushed at
 * once, then one JSON event plus `\n` per event. Honours back-pressure: when the socket buffer is full it stops
 * pulling events until `drain`, so a slow client leaves the engine's per-watcher buffers full and the engine's
 * dispatcher closes the watch, exactly as kube-apiserver's would. Ends the body cleanly when the engine closes the
 * watch; stops the engine watch when the client disconnects. In Table mode only the first event carries
 * `columnDefinitions`; ERROR events are written as the plain Status.
 *
 * The returned promise settles when the stream is over and never rejects; {@link pumpWatch} is the same without it.
 */
export function serveWatch(
  res: ServerResponse,
  source: WatchStreamSource,
  opts: WatchServeOptions,
): Promise<WatchStreamEndReason> {
  return new Promise<WatchStreamEndReason>((resolve) => pumpWatch(res, source, opts, resolve));
}

/**
 * {@link serveWatch} with a callback instead of a promise: `onEnd` is called once with the reason when the stream is
 * over. The pump is one object whose methods are the callbacks (no suspended async frames, no closure per state
 * variable), so an idle watch holds the pump, its two socket listeners and its pending `next()`.
 */
export function pumpWatch(
  res: ServerResponse,
  source: WatchStreamSource,
  opts: WatchServeOptions,
  onEnd: (reason: WatchStreamEndReason) => void,
): void {
  new WatchPump(res, source, opts, onEnd).start();
}

class WatchPump {
  private finished = false;
  private blocked = false;
  private first = true;
  private written = 0;
  // Lines pulled in this turn, written together on the next tick (like the apiserver's flush when its result
  // channel is empty). Coalescing by hand rather than with `res.cork()`: a write made while corked can report a
  // full buffer that no `drain` ever follows (Node 24), which would stall the watch for good.
  private pending = "";
  private flushQueued = false;
  private pulling = false;
  // The callbacks handed to others, bound once per watch.
  private readonly onClose = () => this.finish("client-gone");
  private readonly onDrain = () => this.drained();
  private readonly onResult = (r: IteratorResult<WatchEvent>) => this.result(r);
  private readonly onError = () => this.result({ done: true, value: undefined });

  constructor(
    private readonly res: ServerResponse,
    private readonly source: WatchStreamSource,
    private readonly opts: WatchServeOptions,
    private readonly onEnd: (reason: WatchStreamEndReason) => void,
  ) {}

  start(): void {
    // `on`, not `once`: `finish` removes it, and `once` would keep a bound wrapper and its state object per idle watch.
    this.res.on("close", this.onClose);
    this.res.writeHead(200, { "Content-Type": "application/json", "Cache-Control": "no-cache, private" });
    this.res.flushHeaders();
    this.pull();
  }

  private finish(reason: WatchStreamEndReason): void {
    if (this.finished) return;
    this.finished = true;
    this.res.off("close", this.onClose);
    this.res.off("drain", this.onDrain);
    if (this.blocked) {
      this.blocked = false;
      this.opts.onBlocked?.(false);
    }
    if (reason !== "engine-closed") this.source.stop();
    this.onEnd(reason);
  }

  /** Writes what is pending; false when the socket is full (then `drain` resumes the pump). */
  private flush(): boolean {
    if (this.pending === "" || this.res.destroyed) return true;
    const ok = this.res.write(this.pending);
    this.pending = "";
    return ok;
  }

  private endBody(tail = ""): void {
    this.pending += tail;
    this.flush();
    this.res.end();
  }

  private drained(): void {
    if (this.finished) return;
    this.blocked = false;
    this.opts.onBlocked?.(false);
    this.pull();
  }

  private block(): void {
    this.blocked = true;
    this.opts.onBlocked?.(true);
    this.res.once("drain", this.onDrain);
  }

  private flushLater(): void {
    this.flushQueued = false;
    if (this.finished || this.blocked) return;
    if (!this.flush()) this.block();
    else if (!this.pulling) this.pull();
  }

  private result(r: IteratorResult<WatchEvent>): void {
    this.pulling = false;
    if (this.finished) return;
    const res = this.res;
    if (res.destroyed) {
      this.finish("client-gone");
      return;
    }
    if (r.done === true) {
      this.finish("engine-closed");
      this.endBody();
      return;
    }
    let line: string;
    let bytes: number;
    try {
      ({ line, bytes } = encodeEvent(r.value, this.opts, this.first));
    } catch {
      this.finish("write-error");
      res.destroy();
      return;
    }
    this.first = false;
    const truncateAfter = this.opts.truncateAfterEvents;
    if (truncateAfter !== undefined && this.written >= truncateAfter) {
      this.finish("truncated");
      this.endBody(line.slice(0, Math.max(1, Math.floor(line.length / 2))));
      return;
    }
    this.written++;
    this.pending += line;
    this.opts.onEvent?.(r.value, bytes);
    if (this.pending.length >= COALESCE_CHARS) {
      // Enough for one write now: back-pressure is decided here, before pulling more.
      if (!this.flush()) {
        this.block();
        return;
      }
    } else if (!this.flushQueued) {
      this.flushQueued = true;
      process.nextTick(flushPumpLater, this);
    }
    this.pull();
  }

  private pull(): void {
    if (this.pulling) return;
    this.pulling = true;
    let p: Promise<IteratorResult<WatchEvent>>;
    try {
      p = this.source.next();
    } catch {
      this.onError();
      return;
    }
    p.then(this.onResult, this.onError);
  }

  /** For {@link flushPumpLater}. */
  static flushLater(pump: WatchPump): void {
    pump.flushLater();
  }
}

/** The next-tick flush, without a closure per call. */
const flushPumpLater = (pump: WatchPump): void => WatchPump.flushLater(pump);

/** Lines of one turn are written together until they reach this size; then they go out at once. */
const COALESCE_CHARS = 64 * 1024;
