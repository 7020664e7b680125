import { isAlreadyExists, isNotFound, type KubeObject, StatusError } from "@informer-ts/apimachinery";
import { RequestConstructionError, type ResourceDescriptor } from "@informer-ts/client";
import { type Clock, mathRand, type Rand, realClock } from "@informer-ts/clock";
import {
  defaultRuntimeLogger,
  type Logger,
  type MetricsProvider,
  noopMetrics,
  safeLog,
  safeObservable,
  withFields,
} from "@informer-ts/instrumentation";
import { type Observable, Subject } from "rxjs";
import type { ObjectClient } from "../object-client.js";
import {
  type CorrelatorOptions,
  EventCorrelator,
  type EventSource,
  eventName,
  formatTime,
  type ObjectReference,
  type RecordedEvent,
} from "./events-cache.js";

/** `core/v1` `events`. */
export const eventsResource: ResourceDescriptor = {
  group: "",
  version: "v1",
  resource: "events",
  kind: "Event",
  namespaced: true,
};

/** `v1.EventTypeNormal` / `v1.EventTypeWarning`: the only accepted event types. */
export const EventTypeNormal = "Normal";
export const EventTypeWarning = "Warning";

/** client-go's `maxQueuedEvents` (the broadcaster's incoming buffer) and `maxTriesPerEvent`; `defaultSleepDuration` in ms. */
export const maxQueuedEvents = 1000;
export const maxTriesPerEvent = 12;
export const defaultSleepDuration = 10_000;

/** `record.EventRecorder`: records an event about an object. Never blocks, never throws for bad input (reported instead). */
export interface EventRecorder {
  /** `Event(object, eventtype, reason, message)`. */
  event(object: KubeObject | ObjectReference, type: string, reason: string, message: string): void;
  /** `AnnotatedEventf` without the printf: the event carries `annotations`. */
  annotatedEvent(
    object: KubeObject | ObjectReference,
    annotations: Readonly<Record<string, string>>,
    type: string,
    reason: string,
    message: string,
  ): void;
}

/** What an {@link EventBroadcaster} reports on `events$`. */
export type EventBroadcasterEvent =
  | { readonly type: "dropped"; readonly reason: EventDropReason; readonly event: RecordedEvent }
  | { readonly type: "invalid"; readonly message: string }
  | { readonly type: "skipped"; readonly event: RecordedEvent }
  | { readonly type: "written"; readonly event: RecordedEvent; readonly patched: boolean }
  | { readonly type: "writeError"; readonly event: RecordedEvent; readonly error: unknown; readonly final: boolean };

/**
 * Why an event was not written: the queue was full, the broadcaster stopped, the server refused it (a `StatusError`),
 * the request could not be built, or every one of the 12 tries failed.
 */
export type EventDropReason = "queue-full" | "shutting-down" | "rejected" | "unconstructable" | "retry-limit";

/** Options of an {@link EventBroadcaster}. */
export interface EventBroadcasterOptions {
  /** Where Events are written (create, and patch for repeats). */
  readonly client: ObjectClient;
  /** Capacity of the queue between recorders and the writer. Default 1000 (`maxQueuedEvents`). */
  readonly queueSize?: number;
  /** Pause between write retries (ms; the first is randomised in [0, this)). Default 10 000. */
  readonly sleepDuration?: number;
  readonly correlator?: CorrelatorOptions;
  readonly clock?: Clock;
  readonly rand?: Rand;
  /** `event_recorder_dropped_total{reason}` and `event_recorder_queue_length`. */
  readonly metrics?: MetricsProvider;
  /**
   * Where write failures are logged as client-go does (`Server rejected event (will not retry!)`, `Unable to write
   * event (may retry after sleeping)`, `… (retry limit exceeded!)`) and drops from a full queue. Default the process's
   * runtime logger; `silentLogger` turns it off.
   */
  readonly logger?: Logger;
}

/** The broadcaster's metrics (additions: client-go only logs drops). */
export const eventRecorderMetrics = {
  dropped: {
    name: "event_recorder_dropped_total",
    help: "Events not written, by reason (queue-full, shutting-down, rejected, unconstructable, retry-limit)",
    labelNames: ["reason"],
  },
  queueLength: { name: "event_recorder_queue_length", help: "Events waiting to be written", labelNames: [] },
} as const;

/**
 * client-go's `record.EventBroadcaster` with `StartRecordingToSink`: recorders put events on a bounded queue without
 * waiting; `run(signal)` takes them one at a time, runs them through the {@link EventCorrelator} and writes them: a
 * create, or a patch of the earlier event when it repeats one (a patch answered 404 falls back to a create).
 *
 * Final or retried (client-go's `recordEvent`): every answer of the server (a `StatusError`: 403, 422, 409…) and a
 * request that cannot be built are final — the event is dropped, logged once (`Server rejected event (will not
 * retry!)`, at error level; AlreadyExists and a terminating namespace at debug, as client-go logs them at V(5)) and
 * counted in `event_recorder_dropped_total{reason="rejected"|"unconstructable"}`. Only other failures (the server
 * unreachable, a timeout) are retried, up to 12 tries `sleepDuration` apart (the first pause randomised), each logged
 * (`Unable to write event (may retry after sleeping)`); the last is `reason="retry-limit"`. A full queue drops the new
 * event (`dropped` event and metric, logged) — a reconcile calling `event()` is never blocked.
 *
 * Differences from client-go: one writer per broadcaster (no watch fan-out, no logging sink); `run` returns a promise
 * that resolves once the queue is abandoned and the writer stopped (events still queued are dropped with reason
 * `shutting-down`); event names use the clock's milliseconds plus a sequence number for the sub-millisecond digits.
 */
export class EventBroadcaster {
  readonly events$: Observable<EventBroadcasterEvent>;
  readonly correlator: EventCorrelator;
  private readonly queue: RecordedEvent[] = [];
  private readonly options: EventBroadcasterOptions;
  private readonly clock: Clock;
  private readonly rand: Rand;
  private readonly capacity: number;
  private readonly sleepDuration: number;
  private readonly events = new Subject<EventBroadcasterEvent>();
  private readonly dropped;
  private readonly queueLength;
  private readonly log: Logger;
  private wake: (() => void) | undefined;
  private stopped = false;
  private seq = 0;

  constructor(options: EventBroadcasterOptions) {
    this.options = options;
    this.clock = options.clock ?? realClock;
    this.rand = options.rand ?? mathRand;
    this.capacity = options.queueSize ?? maxQueuedEvents;
    if (!Number.isInteger(this.capacity) || this.capacity < 1) {
      throw new RangeError(`EventBroadcaster: queueSize must be an integer ≥ 1, got ${this.capacity}`);
    }
    this.sleepDuration = options.sleepDuration ?? defaultSleepDuration;
    this.correlator = new EventCorrelator({ clock: this.clock, ...options.correlator });
    const m = options.metrics ?? noopMetrics;
    this.dropped = m.counter(eventRecorderMetrics.dropped);
    this.queueLength = m.gauge(eventRecorderMetrics.queueLength);
    this.log = withFields(options.logger ?? defaultRuntimeLogger(), { logger: "events" });
    this.events$ = safeObservable(this.events.asObservable(), "event broadcaster events$");
  }

  /** A recorder whose events carry `source` (`NewRecorder`). */
  newRecorder(source: EventSource): EventRecorder {
    const gen = (
      object: KubeObject | ObjectReference,
      annotations: Readonly<Record<string, string>> | undefined,
      type: string,
      reason: string,
      message: string,
    ) => {
      if (type !== EventTypeNormal && type !== EventTypeWarning) {
        this.events.next({ type: "invalid", message: `Unsupported event type: '${String(type)}'` });
        return;
      }
      const ref = referenceOf(object);
      if (ref === undefined) {
        this.events.next({ type: "invalid", message: "could not construct reference: the object has no name" });
        return;
      }
      const now = this.clock.now();
      const t = formatTime(now);
      const event: RecordedEvent = {
        metadata: {
          name: eventName(ref.name, now, this.seq++),
          namespace: ref.namespace || "default",
          ...(annotations !== undefined && { annotations: { ...annotations } }),
        },
        involvedObject: ref,
        reason: String(reason),
        message: String(message),
        firstTimestamp: t,
        lastTimestamp: t,
        count: 1,
        type,
        source: { ...source },
        // As client-go's recorder: the source names the reporting controller and instance (a kubelet's node).
        reportingComponent: source.component ?? "",
        reportingInstance: source.host ?? "",
      };
      this.enqueue(event);
    };
    return {
      event: (object, type, reason, message) => gen(object, undefined, type, reason, message),
      annotatedEvent: (object, annotations, type, reason, message) => gen(object, annotations, type, reason, message),
    };
  }

  /** Events waiting to be written. */
  pending(): number {
    return this.queue.length;
  }

  /** Writes queued events until `signal` aborts; resolves once the writer stopped. Once per broadcaster. */
  async run(signal: AbortSignal): Promise<void> {
    const onAbort = () => {
      this.stopped = true;
      this.wake?.();
    };
    if (signal.aborted) onAbort();
    signal.addEventListener("abort", onAbort, { once: true });
    try {
      while (!this.stopped) {
        const event = this.queue.shift();
        if (event === undefined) {
          await new Promise<void>((resolve) => {
            this.wake = resolve;
          });
          this.wake = undefined;
          continue;
        }
        this.queueLength.set(this.queue.length);
        await this.recordToSink(event, signal);
      }
    } finally {
      signal.removeEventListener("abort", onAbort);
      for (const event of this.queue.splice(0)) this.drop(event, "shutting-down");
      this.queueLength.set(0);
      this.events.complete();
    }
  }

  private enqueue(event: RecordedEvent): void {
    if (this.stopped || this.queue.length >= this.capacity) {
      this.drop(event, this.stopped ? "shutting-down" : "queue-full");
      return;
    }
    this.queue.push(event);
    this.queueLength.set(this.queue.length);
    this.wake?.();
  }

  private drop(event: RecordedEvent, reason: EventDropReason): void {
    if (reason === "queue-full") {
      safeLog(this.log, "error", "Event queue full: event dropped", { ...eventFields(event), capacity: this.capacity });
    }
    this.dropped.inc({ reason });
    this.events.next({ type: "dropped", reason, event });
  }

  private async recordToSink(event: RecordedEvent, signal: AbortSignal): Promise<void> {
    const result = this.correlator.eventCorrelate(event);
    if (result.skip || result.event === undefined) {
      this.events.next({ type: "skipped", event });
      return;
    }
    for (let tries = 1; ; tries++) {
      const done = await this.recordEvent(result.event, result.patch, signal, tries >= maxTriesPerEvent);
      if (done || signal.aborted) return;
      if (tries >= maxTriesPerEvent) {
        safeLog(this.log, "error", "Unable to write event (retry limit exceeded!)", {
          ...eventFields(result.event),
          tries,
        });
        this.dropped.inc({ reason: "retry-limit" });
        return;
      }
      const pause = tries === 1 ? this.sleepDuration * this.rand.float() : this.sleepDuration;
      try {
        await this.clock.sleep(pause, signal);
      } catch {
        return;
      }
    }
  }

  /** `recordEvent`: true when done (written, or an error that retrying cannot fix). */
  private async recordEvent(
    event: RecordedEvent,
    patch: Record<string, unknown> | undefined,
    signal: AbortSignal,
    last: boolean,
  ): Promise<boolean> {
    const client = this.options.client;
    const namespace = event.metadata.namespace ?? "default";
    let written: KubeObject | undefined;
    let error: unknown;
    const update = event.count > 1 && patch !== undefined;
    if (update) {
      try {
        written = await client.patch(
          eventsResource,
          event.metadata.name ?? "",
          patch,
          { namespace, patchType: "strategic-merge" },
          signal,
        );
      } catch (err) {
        error = err;
      }
    }
    if (!update || (error !== undefined && isNotFound(error))) {
      error = undefined;
      const { resourceVersion: _rv, ...meta } = event.metadata;
      try {
        written = await client.create(eventsResource, { ...event, metadata: meta }, { namespace }, signal);
      } catch (err) {
        error = err;
      }
    }
    if (error === undefined && written !== undefined) {
      const stored = written as RecordedEvent;
      this.correlator.updateState({ ...event, ...stored, metadata: { ...event.metadata, ...stored.metadata } });
      this.events.next({ type: "written", event: stored, patched: update });
      return true;
    }
    const fields = { ...eventFields(event), error };
    let final = true;
    if (error instanceof RequestConstructionError) {
      safeLog(this.log, "error", "Unable to construct event (will not retry!)", fields);
      this.dropped.inc({ reason: "unconstructable" });
    } else if (error instanceof StatusError) {
      const expected = isAlreadyExists(error) || namespaceTerminating(error);
      safeLog(this.log, expected ? "debug" : "error", "Server rejected event (will not retry!)", {
        ...fields,
        code: error.code,
        reason: error.reason,
      });
      this.dropped.inc({ reason: "rejected" });
    } else {
      final = false;
      if (!signal.aborted) safeLog(this.log, "error", "Unable to write event (may retry after sleeping)", fields);
    }
    this.events.next({ type: "writeError", event, error, final: final || last });
    return final;
  }
}

/** The log keys of an event: what it is about and what it says. */
function eventFields(event: RecordedEvent): Record<string, unknown> {
  const o = event.involvedObject;
  return {
    event: event.metadata.name,
    namespace: event.metadata.namespace,
    object: `${o.kind ?? ""} ${o.namespace ? `${o.namespace}/` : ""}${o.name}`.trim(),
    type: event.type,
    eventReason: event.reason,
    message: event.message,
  };
}

function namespaceTerminating(err: StatusError): boolean {
  return (err.status.details?.causes ?? []).some((c) => c.reason === "NamespaceTerminating");
}

/** `reference.GetReference`: an `ObjectReference` to a Kubernetes object (or the reference itself). */
export function referenceOf(object: KubeObject | ObjectReference): ObjectReference | undefined {
  if (typeof object !== "object" || object === null) return undefined;
  const meta = (object as KubeObject).metadata;
  if (meta === undefined) {
    const r = object as ObjectReference;
    return typeof r.name === "string" && r.name !== "" ? { ...r } : undefined;
  }
  if (typeof meta.name !== "string" || meta.name === "") return undefined;
  const o = object as KubeObject;
  return {
    ...(typeof o.kind === "string" && { kind: o.kind }),
    ...(meta.namespace !== undefined && { namespace: meta.namespace }),
    name: meta.name,
    ...(meta.uid !== undefined && { uid: meta.uid }),
    ...(typeof o.apiVersion === "string" && { apiVersion: o.apiVersion }),
    ...(meta.resourceVersion !== undefined && { resourceVersion: meta.resourceVersion }),
  };
}

/**
 * `record.FakeRecorder`: keeps `"<type> <reason> <message>"` strings, for tests of code that records events.
 */
export class FakeRecorder implements EventRecorder {
  readonly events: string[] = [];
  event(_object: KubeObject | ObjectReference, type: string, reason: string, message: string): void {
    this.events.push(`${type} ${reason} ${message}`);
  }
  annotatedEvent(
    object: KubeObject | ObjectReference,
    _annotations: Readonly<Record<string, string>>,
    type: string,
    reason: string,
    message: string,
  ): void {
    this.event(object, type, reason, message);
  }
}
