import type { KubeObject } from "@informer-ts/apimachinery";
import { type Clock, realClock } from "@informer-ts/clock";
import { Limiter } from "@informer-ts/workqueue";

/** `v1.ObjectReference`: what an Event is about. */
export interface ObjectReference {
  kind?: string;
  namespace?: string;
  name?: string;
  uid?: string;
  apiVersion?: string;
  resourceVersion?: string;
  fieldPath?: string;
}

/** `v1.EventSource`. */
export interface EventSource {
  component?: string;
  host?: string;
}

/** A `core/v1` Event (the fields the recorder writes). Timestamps are RFC 3339 strings, as on the wire. */
export interface RecordedEvent extends KubeObject {
  metadata: NonNullable<KubeObject["metadata"]>;
  involvedObject: ObjectReference;
  reason: string;
  message: string;
  source: EventSource;
  firstTimestamp: string;
  lastTimestamp: string;
  count: number;
  type: string;
  reportingComponent?: string;
  reportingInstance?: string;
}

/** `maxLruCacheEntries` and the correlator's defaults (client-go `events_cache.go`). */
export const maxLruCacheEntries = 4096;
export const defaultAggregateMaxEvents = 10;
export const defaultAggregateIntervalInSeconds = 600;
export const defaultSpamBurst = 25;
export const defaultSpamQPS = 1 / 300;

/** A small LRU map (`groupcache/lru`): `get` refreshes, `set` evicts the least recently used beyond `size`. */
class Lru<V> {
  private readonly map = new Map<string, V>();
  constructor(private readonly size: number) {}
  get(key: string): V | undefined {
    const v = this.map.get(key);
    if (v !== undefined) {
      this.map.delete(key);
      this.map.set(key, v);
    }
    return v;
  }
  set(key: string, value: V): void {
    this.map.delete(key);
    this.map.set(key, value);
    if (this.map.size > this.size) this.map.delete(this.map.keys().next().value!);
  }
  get length(): number {
    return this.map.size;
  }
}

const s = (v: string | undefined): string => v ?? "";

/** `getEventKey`: source, involved object (with field path), type, reason and message. */
export function getEventKey(e: RecordedEvent): string {
  const o = e.involvedObject;
  return [
    s(e.source.component),
    s(e.source.host),
    s(o.kind),
    s(o.namespace),
    s(o.name),
    s(o.fieldPath),
    s(o.uid),
    s(o.apiVersion),
    e.type,
    e.reason,
    e.message,
  ].join("");
}

/** `getSpamKey`: source and involved object. */
export function getSpamKey(e: RecordedEvent): string {
  const o = e.involvedObject;
  return [
    s(e.source.component),
    s(e.source.host),
    s(o.kind),
    s(o.namespace),
    s(o.name),
    s(o.uid),
    s(o.apiVersion),
  ].join("");
}

/** `EventAggregatorByReasonFunc`: events that differ only by message aggregate; the message is the local key. */
export function eventAggregatorByReasonFunc(e: RecordedEvent): [aggregateKey: string, localKey: string] {
  const o = e.involvedObject;
  return [
    [
      s(e.source.component),
      s(e.source.host),
      s(o.kind),
      s(o.namespace),
      s(o.name),
      s(o.uid),
      s(o.apiVersion),
      e.type,
      e.reason,
      s(e.reportingComponent),
      s(e.reportingInstance),
    ].join(""),
    e.message,
  ];
}

/** `EventAggregatorByReasonMessageFunc`. */
export function eventAggregatorByReasonMessageFunc(e: RecordedEvent): string {
  return `(combined from similar events): ${e.message}`;
}

/** `CorrelatorOptions` (zero/undefined fields take the defaults). */
export interface CorrelatorOptions {
  readonly lruCacheSize?: number;
  readonly burstSize?: number;
  readonly qps?: number;
  readonly keyFunc?: (e: RecordedEvent) => [string, string];
  readonly messageFunc?: (e: RecordedEvent) => string;
  readonly maxEvents?: number;
  readonly maxIntervalInSeconds?: number;
  readonly spamKeyFunc?: (e: RecordedEvent) => string;
  readonly clock?: Clock;
}

/** `EventCorrelateResult`: the event to write, a patch when it updates an earlier one, or skip (spam). */
export interface EventCorrelateResult {
  readonly event?: RecordedEvent;
  /** A merge patch of `count`, `lastTimestamp` and `message`, when the event repeats one already written. */
  readonly patch?: Record<string, unknown>;
  readonly skip: boolean;
}

/** `metav1.Time` text: RFC 3339, whole seconds, UTC. */
export function formatTime(ms: number): string {
  return new Date(Math.floor(ms / 1000) * 1000).toISOString().replace(/\.\d{3}Z$/, "Z");
}

interface AggregateRecord {
  localKeys: Set<string>;
  lastTimestamp: number;
}

interface EventLog {
  count: number;
  firstTimestamp: string;
  name: string;
  resourceVersion: string | undefined;
}

/**
 * client-go's `EventCorrelator`: in one synchronous call it
 *
 * 1. **aggregates** (`EventAggregator`): once 10 events that differ only by message were seen within 10 minutes of each
 *    other for one source/object/type/reason, further ones become a single "(combined from similar events): …" event;
 * 2. **counts** (`eventLogger`): an event equal to one already written (same key, including the message) becomes a
 *    patch of the written one with `count + 1`, the new `lastTimestamp` and message;
 * 3. **filters spam** (`EventSourceObjectSpamFilter`): each source+object has a token bucket of 25 events refilled at
 *    one per 5 minutes; an event without a token is skipped.
 *
 * Caches are LRUs of 4096 entries. `updateState` records what the server returned after a write.
 */
export class EventCorrelator {
  private readonly clock: Clock;
  private readonly lruSize: number;
  private readonly burst: number;
  private readonly qps: number;
  private readonly keyFunc: (e: RecordedEvent) => [string, string];
  private readonly messageFunc: (e: RecordedEvent) => string;
  private readonly maxEvents: number;
  private readonly maxIntervalMs: number;
  private readonly spamKeyFunc: (e: RecordedEvent) => string;
  private readonly aggregates: Lru<AggregateRecord>;
  private readonly logs: Lru<EventLog>;
  private readonly spam: Lru<Limiter>;

  constructor(options: CorrelatorOptions = {}) {
    this.clock = options.clock ?? realClock;
    this.lruSize = options.lruCacheSize || maxLruCacheEntries;
    this.burst = options.burstSize || defaultSpamBurst;
    this.qps = options.qps || defaultSpamQPS;
    this.keyFunc = options.keyFunc ?? eventAggregatorByReasonFunc;
    this.messageFunc = options.messageFunc ?? eventAggregatorByReasonMessageFunc;
    this.maxEvents = options.maxEvents || defaultAggregateMaxEvents;
    this.maxIntervalMs = (options.maxIntervalInSeconds || defaultAggregateIntervalInSeconds) * 1000;
    this.spamKeyFunc = options.spamKeyFunc ?? getSpamKey;
    this.aggregates = new Lru(this.lruSize);
    this.logs = new Lru(this.lruSize);
    this.spam = new Lru(this.lruSize);
  }

  /** `EventCorrelate`. Does not modify `event`. */
  eventCorrelate(event: RecordedEvent): EventCorrelateResult {
    const [aggregated, key] = this.eventAggregate(event);
    const [observed, patch] = this.eventObserve(aggregated, key);
    if (this.filter(observed)) return { skip: true };
    return { event: observed, ...(patch !== undefined && { patch }), skip: false };
  }

  /** `UpdateState`: remembers the event as the server returned it (name, resourceVersion, count). */
  updateState(event: RecordedEvent): void {
    this.logs.set(getEventKey(event), {
      count: event.count,
      firstTimestamp: event.firstTimestamp,
      name: event.metadata.name ?? "",
      resourceVersion: event.metadata.resourceVersion,
    });
  }

  private eventAggregate(event: RecordedEvent): [RecordedEvent, string] {
    const now = this.clock.now();
    const eventKey = getEventKey(event);
    const [aggregateKey, localKey] = this.keyFunc(event);
    let record = this.aggregates.get(aggregateKey);
    if (record === undefined || now - record.lastTimestamp > this.maxIntervalMs) {
      record = { localKeys: new Set(), lastTimestamp: 0 };
    }
    record.localKeys.add(localKey);
    record.lastTimestamp = now;
    this.aggregates.set(aggregateKey, record);
    if (record.localKeys.size < this.maxEvents) return [event, eventKey];
    // Do not grow the local key set beyond the maximum.
    record.localKeys.delete(record.localKeys.values().next().value!);
    const t = formatTime(now);
    const copy: RecordedEvent = {
      metadata: { name: eventName(event.involvedObject.name, now, 0), namespace: event.metadata.namespace ?? "" },
      count: 1,
      firstTimestamp: t,
      involvedObject: event.involvedObject,
      lastTimestamp: t,
      message: this.messageFunc(event),
      type: event.type,
      reason: event.reason,
      source: event.source,
    };
    return [copy, aggregateKey];
  }

  private eventObserve(event: RecordedEvent, key: string): [RecordedEvent, Record<string, unknown> | undefined] {
    let out: RecordedEvent = { ...event, metadata: { ...event.metadata } };
    let patch: Record<string, unknown> | undefined;
    const last = this.logs.get(key);
    if (last !== undefined && last.count > 0) {
      out = {
        ...out,
        metadata: {
          ...out.metadata,
          name: last.name,
          ...(last.resourceVersion !== undefined && { resourceVersion: last.resourceVersion }),
        },
        firstTimestamp: last.firstTimestamp,
        count: last.count + 1,
      };
      patch = {
        count: out.count,
        lastTimestamp: out.lastTimestamp,
        ...(out.message !== "" && { message: out.message }),
      };
    }
    this.logs.set(key, {
      count: out.count,
      firstTimestamp: out.firstTimestamp,
      name: out.metadata.name ?? "",
      resourceVersion: out.metadata.resourceVersion,
    });
    return [out, patch];
  }

  private filter(event: RecordedEvent): boolean {
    const key = this.spamKeyFunc(event);
    let limiter = this.spam.get(key);
    if (limiter === undefined) limiter = new Limiter(this.qps, this.burst, this.clock);
    const skip = !limiter.allow();
    this.spam.set(key, limiter);
    return skip;
  }
}

/**
 * An Event's name: `<object name>.<hex nanoseconds>` (client-go's `fmt.Sprintf("%v.%x", name, t.UnixNano())`). The clock
 * has millisecond resolution, so `seq` (taken modulo 10⁶) fills the sub-millisecond digits to keep names unique.
 */
export function eventName(objectName: string | undefined, ms: number, seq: number): string {
  const ns = BigInt(Math.floor(ms)) * 1_000_000n + BigInt(seq % 1_000_000);
  return `${objectName ?? ""}.${ns.toString(16)}`;
}
