import { type Clock, realClock, type Ticker } from "@informer-ts/clock";
import {
  EventStream,
  type Logger,
  newConsoleLogger,
  type SubscriberErrorReporter,
  safeLog,
} from "@informer-ts/instrumentation";
import { EMPTY, type Observable } from "rxjs";
import { parseGoBool } from "./internal/go-helpers.js";
import { deletionHandlingMetaNamespaceKeyFunc } from "./keys.js";
import type { KeyFunc } from "./store.js";
import { isDeletedFinalStateUnknown } from "./tombstone.js";

/**
 * How a {@link MutationDetector} catches mutation of cached objects:
 * - `"freeze"`: every recorded object is deep-frozen, so the mutating statement itself throws a `TypeError`
 *   (ES modules and classes are strict mode) with the offending stack. Costs no memory.
 * - `"check"`: a deep copy is kept and compared periodically, as client-go does; the report names each
 *   mutated object's key and the first differing field path (e.g. `metadata.labels.app`).
 */
export type MutationDetectorMode = "freeze" | "check";

/** One cached object found different from its snapshot. */
export interface ObjectMutation {
  /** The object's key (by the detector's key function), or `#<n>` when it has none. */
  readonly key: string;
  /** The first differing field path, e.g. `metadata.labels.app` or `spec.containers[0].image`; "" for the root. */
  readonly path: string;
  /** The value at `path` when the object was recorded (`undefined` if absent). */
  readonly before: unknown;
  /** The value at `path` now (`undefined` if absent). */
  readonly after: unknown;
}

/** Everything one comparison found. */
export interface MutationReport {
  /** The detector's name (usually the informer's). */
  readonly name: string;
  readonly mutations: readonly ObjectMutation[];
}

/** Events of a {@link MutationDetector}. */
export type MutationDetectorEvent = { readonly type: "mutation"; readonly report: MutationReport };

/** Thrown by {@link MutationDetector.compareObjects} when built with `panic: true`. */
export class MutationDetectedError extends Error {
  override readonly name = "MutationDetectedError";
  constructor(readonly report: MutationReport) {
    super(
      `cache ${report.name} modified: ${report.mutations
        .map((m) => `${m.key} at ${m.path === "" ? "<root>" : m.path}`)
        .join(", ")}`,
    );
  }
}

/** Options of {@link newCacheMutationDetector}. */
export interface MutationDetectorOptions {
  /** Default: `KUBE_CACHE_MUTATION_DETECTOR` parsed as a Go bool (`1`, `t`, `true`, `TRUE`, …). */
  readonly enabled?: boolean;
  /** Default `"check"` (client-go's behaviour). */
  readonly mode?: MutationDetectorMode;
  /** Drives the periodic comparison. Default `realClock`. */
  readonly clock?: Clock;
  /** Comparison period in ms (client-go: 1 s). */
  readonly periodMs?: number;
  /** How long snapshots are kept, in ms (client-go: 2 min; an object is checked for 2 to 4 minutes). */
  readonly retentionMs?: number;
  /** Names objects in reports. Default `deletionHandlingMetaNamespaceKeyFunc`. */
  readonly keyFunc?: KeyFunc;
  /** `compareObjects()` throws {@link MutationDetectedError} on a mismatch (never from the periodic check). */
  readonly panic?: boolean;
  /** Called with every non-empty report. */
  readonly onMutation?: (report: MutationReport) => void;
  /** Where a report nobody else received is written (level `error`). Default: a console logger. */
  readonly logger?: Logger;
  /** Where errors thrown by subscribers of `events$` are reported. Default: the shared console reporter. */
  readonly subscriberErrors?: SubscriberErrorReporter;
}

/**
 * Detects handlers that mutate cached objects (`cache.MutationDetector`, I18). The informer (or a store built
 * with the `mutationDetector` option) calls {@link MutationDetector.addObject} for each object it caches.
 * A detector that is not enabled does nothing and holds nothing.
 */
export interface MutationDetector {
  readonly name: string;
  readonly enabled: boolean;
  readonly mode: MutationDetectorMode;
  /** Reports, for subscribers: read-only, hot, no replay; a throwing subscriber is reported, never re-thrown. */
  readonly events$: Observable<MutationDetectorEvent>;
  /** Records `obj` (tombstones and non-objects are ignored): freezes it or snapshots it. */
  addObject(obj: unknown): void;
  /**
   * Runs the periodic check on the clock (every `periodMs`, rotating snapshots every `retentionMs`) until
   * `signal` aborts; resolves once the ticker and the signal's listener are released. A second concurrent call,
   * an aborted signal and freeze mode resolve at once.
   */
  run(signal: AbortSignal): Promise<void>;
  /**
   * Compares every retained object with its snapshot now. Each mutated object is reported once (then
   * forgotten): to `onMutation`, to `events$`, or else to the logger; then, with `panic: true`,
   * thrown as {@link MutationDetectedError}. Returns the mutations found.
   */
  compareObjects(): ObjectMutation[];
}

/** Whether `KUBE_CACHE_MUTATION_DETECTOR` (or `value`) is true in Go's `strconv.ParseBool` sense. */
export function mutationDetectionEnabledFromEnv(
  value: string | undefined = globalThis.process?.env?.KUBE_CACHE_MUTATION_DETECTOR,
): boolean {
  return parseGoBool(value) ?? false;
}

const defaultLogger = newConsoleLogger("mutation-detector");

interface Snapshot {
  readonly cached: object;
  readonly copy: unknown;
}

class DisabledDetector implements MutationDetector {
  readonly enabled = false;
  readonly mode: MutationDetectorMode = "check";
  readonly events$: Observable<MutationDetectorEvent> = EMPTY;
  constructor(readonly name: string) {}
  addObject(): void {}
  run(): Promise<void> {
    return Promise.resolve();
  }
  compareObjects(): ObjectMutation[] {
    return [];
  }
}

class DefaultMutationDetector implements MutationDetector {
  readonly enabled = true;
  readonly mode: MutationDetectorMode;
  readonly events$: Observable<MutationDetectorEvent>;
  private readonly events: EventStream<MutationDetectorEvent>;
  private readonly logger: Logger;
  private readonly clock: Clock;
  private readonly periodMs: number;
  private readonly retentionMs: number;
  private readonly keyFunc: KeyFunc;
  private readonly panic: boolean;
  private readonly onMutation: ((report: MutationReport) => void) | undefined;
  private added: Snapshot[] = [];
  private cached: Snapshot[] = [];
  private retained: Snapshot[] = [];
  private lastRotated: number | undefined;
  private ticker: Ticker | undefined;

  constructor(
    readonly name: string,
    options: MutationDetectorOptions,
  ) {
    this.mode = options.mode ?? "check";
    this.clock = options.clock ?? realClock;
    this.periodMs = options.periodMs ?? 1000;
    this.retentionMs = options.retentionMs ?? 2 * 60 * 1000;
    this.keyFunc = options.keyFunc ?? deletionHandlingMetaNamespaceKeyFunc;
    this.panic = options.panic ?? false;
    this.onMutation = options.onMutation;
    this.logger = options.logger ?? defaultLogger;
    this.events = new EventStream<MutationDetectorEvent>({
      name: `mutation detector ${name} events$`,
      reporter: options.subscriberErrors,
    });
    this.events$ = this.events.events$;
    if (!(this.periodMs > 0) || !(this.retentionMs > 0)) {
      throw new RangeError(`mutation detector periods must be > 0 ms, got ${this.periodMs} and ${this.retentionMs}`);
    }
  }

  addObject(obj: unknown): void {
    if (typeof obj !== "object" || obj === null || isDeletedFinalStateUnknown(obj)) return;
    if (this.mode === "freeze") {
      deepFreeze(obj, new WeakSet());
      return;
    }
    this.added.push({ cached: obj, copy: deepCopy(obj, new Map()) });
  }

  async run(signal: AbortSignal): Promise<void> {
    if (this.mode === "freeze" || this.ticker !== undefined || signal.aborted) return;
    this.lastRotated = this.clock.now();
    const ticker = this.clock.newTicker(this.periodMs, () => this.tick());
    this.ticker = ticker;
    try {
      await new Promise<void>((resolve) => signal.addEventListener("abort", () => resolve(), { once: true }));
    } finally {
      ticker.stop();
      this.ticker = undefined;
    }
  }

  compareObjects(): ObjectMutation[] {
    const mutations = this.collect();
    if (mutations.length === 0) return mutations;
    const report: MutationReport = { name: this.name, mutations };
    this.publish(report);
    if (this.panic) throw new MutationDetectedError(report);
    return mutations;
  }

  private tick(): void {
    const now = this.clock.now();
    if (this.lastRotated === undefined) {
      this.lastRotated = now;
    } else if (now - this.lastRotated > this.retentionMs) {
      this.retained = this.cached;
      this.cached = [];
      this.lastRotated = now;
    }
    const mutations = this.collect();
    if (mutations.length > 0) this.publish({ name: this.name, mutations });
  }

  private publish(report: MutationReport): void {
    let delivered = false;
    if (this.onMutation !== undefined) {
      delivered = true;
      try {
        this.onMutation(report);
      } catch {
        // A failing callback must not stop the detector; the event and warning below still carry the report.
        delivered = false;
      }
    }
    if (this.events.observed) {
      delivered = true;
      this.events.emit({ type: "mutation", report });
    }
    if (!delivered) {
      safeLog(this.logger, "error", new MutationDetectedError(report).message, { detector: this.name });
    }
  }

  /** Moves newly added snapshots in, compares everything, and forgets the mutated entries. */
  private collect(): ObjectMutation[] {
    if (this.added.length > 0) {
      for (const s of this.added) this.cached.push(s);
      this.added = [];
    }
    const out: ObjectMutation[] = [];
    this.cached = this.compareList(this.cached, out);
    this.retained = this.compareList(this.retained, out);
    return out;
  }

  private compareList(list: Snapshot[], out: ObjectMutation[]): Snapshot[] {
    let kept: Snapshot[] | undefined;
    for (let i = 0; i < list.length; i++) {
      const s = list[i]!;
      const diff = firstDifference(s.copy, s.cached, "", new Set());
      if (diff === undefined) {
        kept?.push(s);
        continue;
      }
      if (kept === undefined) kept = list.slice(0, i);
      out.push({ key: this.keyOfSnapshot(s.copy, out.length), path: diff.path, before: diff.a, after: diff.b });
    }
    return kept ?? list;
  }

  private keyOfSnapshot(copy: unknown, n: number): string {
    try {
      return this.keyFunc(copy);
    } catch {
      return `#${n}`;
    }
  }
}

/**
 * Creates a mutation detector named `name` (`cache.NewCacheMutationDetector`). When not enabled (the
 * default unless `KUBE_CACHE_MUTATION_DETECTOR=true`) it returns an inert detector.
 *
 * Differences from client-go: a mismatch never crashes the process. client-go panics; here the report goes
 * to `onMutation`, to `events$`, or else to the logger (level `error`), and `compareObjects()` throws only with
 * `panic: true`. Each mutated object is reported once. The `"freeze"` mode is new. The first comparison runs
 * one period after `run` (client-go compares immediately).
 */
export function newCacheMutationDetector(name: string, options: MutationDetectorOptions = {}): MutationDetector {
  const enabled = options.enabled ?? mutationDetectionEnabledFromEnv();
  return enabled ? new DefaultMutationDetector(name, options) : new DisabledDetector(name);
}

function deepFreeze(value: object, seen: WeakSet<object>): void {
  if (seen.has(value) || ArrayBuffer.isView(value) || value instanceof ArrayBuffer) return;
  seen.add(value);
  for (const key of Reflect.ownKeys(value)) {
    const desc = Object.getOwnPropertyDescriptor(value, key);
    const child = desc?.value;
    if (typeof child === "object" && child !== null) deepFreeze(child, seen);
  }
  Object.freeze(value);
}

function deepCopy(value: unknown, seen: Map<object, unknown>): unknown {
  if (typeof value !== "object" || value === null) return value;
  const known = seen.get(value);
  if (known !== undefined) return known;
  if (value instanceof Date) return new Date(value.getTime());
  if (Array.isArray(value)) {
    const arr: unknown[] = new Array(value.length);
    seen.set(value, arr);
    for (let i = 0; i < value.length; i++) arr[i] = deepCopy(value[i], seen);
    return arr;
  }
  const out = Object.create(Object.getPrototypeOf(value)) as Record<string, unknown>;
  seen.set(value, out);
  for (const key of Object.keys(value)) out[key] = deepCopy((value as Record<string, unknown>)[key], seen);
  return out;
}

const IDENT = /^[A-Za-z_$][A-Za-z0-9_$]*$/;

function childPath(path: string, key: string): string {
  if (IDENT.test(key)) return path === "" ? key : `${path}.${key}`;
  return `${path}[${JSON.stringify(key)}]`;
}

/** The first path where `a` (snapshot) and `b` (current) differ, JSON-style (absent equals undefined). */
function firstDifference(
  a: unknown,
  b: unknown,
  path: string,
  stack: Set<object>,
): { path: string; a: unknown; b: unknown } | undefined {
  if (Object.is(a, b)) return undefined;
  if (typeof a !== "object" || typeof b !== "object" || a === null || b === null) return { path, a, b };
  if (stack.has(b)) return undefined;
  if (a instanceof Date || b instanceof Date) {
    return a instanceof Date && b instanceof Date && a.getTime() === b.getTime() ? undefined : { path, a, b };
  }
  if (Array.isArray(a) !== Array.isArray(b)) return { path, a, b };
  stack.add(b);
  try {
    if (Array.isArray(a) && Array.isArray(b)) {
      const n = Math.max(a.length, b.length);
      for (let i = 0; i < n; i++) {
        const d = firstDifference(a[i], b[i], `${path}[${i}]`, stack);
        if (d !== undefined) return d;
      }
      return undefined;
    }
    const ra = a as Record<string, unknown>;
    const rb = b as Record<string, unknown>;
    for (const key of Object.keys(ra)) {
      const d = firstDifference(ra[key], rb[key], childPath(path, key), stack);
      if (d !== undefined) return d;
    }
    for (const key of Object.keys(rb)) {
      if (Object.hasOwn(ra, key)) continue;
      const d = firstDifference(undefined, rb[key], childPath(path, key), stack);
      if (d !== undefined) return d;
    }
    return undefined;
  } finally {
    stack.delete(b);
  }
}

/** Exposed for tests and tools: the first differing path between two JSON-like values, or `undefined`. */
export function firstDifferencePath(before: unknown, after: unknown): string | undefined {
  return firstDifference(before, after, "", new Set())?.path;
}
