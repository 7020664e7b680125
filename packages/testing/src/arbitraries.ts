import type { KubeObject } from "@informer-ts/apimachinery";
import { builtinResources } from "@informer-ts/client";
import fc from "fast-check";
import {
  applyResourceStep,
  describeResourceStep,
  type HistoryResource,
  type ResourceStep,
  resourceStepArb,
} from "./resource-steps.js";
import type { SimCluster } from "./sim-cluster.js";

/** A write to the cluster: one step of an object history (ConfigMaps, the kit's default resource). */
export type ObjectStep =
  | { readonly kind: "put"; readonly namespace: string; readonly name: string; readonly value: number }
  | { readonly kind: "label"; readonly namespace: string; readonly name: string; readonly tier: string }
  | {
      readonly kind: "set-label";
      readonly namespace: string;
      readonly name: string;
      readonly key: string;
      /** The value the label gets; `undefined` removes the key. The object's other labels are kept. */
      readonly value: string | undefined;
    }
  | { readonly kind: "large"; readonly namespace: string; readonly name: string; readonly kib: number }
  | { readonly kind: "delete"; readonly namespace: string; readonly name: string }
  | { readonly kind: "recreate"; readonly namespace: string; readonly name: string };

/** A server fault (the simulator's own fault injection). */
export type FaultStep =
  | { readonly kind: "drop-watches"; readonly asError: boolean }
  | { readonly kind: "compact" }
  | { readonly kind: "reinitialize-cache"; readonly downtimeMs: number }
  | {
      readonly kind: "request-fault";
      readonly verb: "list" | "watch";
      readonly code: 429 | 500 | 504;
      /** With 429: the `Retry-After` seconds (default 1). */
      readonly retryAfterSeconds?: number;
    }
  | { readonly kind: "too-large-rv"; readonly verb: "list" | "watch" }
  | {
      readonly kind: "stall-watchers";
      readonly namespace: string;
      readonly name: string;
      /** Updates of `namespace/name` written while the watchers are stalled (enough fill their buffers). */
      readonly updates: number;
    }
  | { readonly kind: "late-bookmarks"; readonly ms: number }
  | { readonly kind: "error-burst"; readonly verb: "list" | "watch"; readonly count: number }
  | { readonly kind: "truncate-watch"; readonly afterEvents: number }
  | { readonly kind: "bookmarks"; readonly mode: "on" | "no-periodic" | "off" }
  | { readonly kind: "latency"; readonly verb: "list" | "watch"; readonly ms: number };

/** Virtual time passing. */
export interface TimeStep {
  readonly kind: "wait";
  readonly ms: number;
}

/**
 * A step of your own (see {@link HistoryOptions.custom}): a third-party write your controller must repair, a fault the
 * kit does not generate. It describes itself for the story and the timeline, and applies itself to the case's cluster,
 * returning what happened (an exception is caught and printed as the outcome). `apply` runs inside `cluster.run`:
 * virtual time advances while it awaits, so its requests answer under the modelled latency. Build it with `fc.record(...).map(...)`
 * so that it shrinks with the record.
 */
export interface CustomStep {
  readonly kind: "custom";
  /** One line, as the failure's story prints it. */
  readonly description: string;
  apply(cluster: SimCluster): Promise<string> | string;
}

/**
 * One step of a generated history: a write (of a ConfigMap, or of one of the `resources`), a fault, time passing, or a
 * step of your own.
 */
export type SimStep = ObjectStep | ResourceStep | FaultStep | TimeStep | CustomStep;

/** Options of the history arbitraries. */
export interface HistoryOptions {
  /** Namespaces objects are spread over (default `default` and `team-a`; each must exist, see {@link prepareNamespaces}). */
  readonly namespaces?: readonly string[];
  /** Object names per namespace (default `a`, `b`, `c`: few, so histories revisit keys). */
  readonly names?: readonly string[];
  /** Most steps of a history (default 25). */
  readonly maxSteps?: number;
  /** Include server faults (default true). */
  readonly faults?: boolean;
  /** Relative weights of writes, time steps and faults (default 8, 3, 4). */
  readonly weights?: { readonly writes?: number; readonly time?: number; readonly faults?: number };
  /**
   * The labels your code reads: label key → the values a label step may give it (`undefined` removes the key), e.g.
   * `{ "mirror.example.com/enabled": ["true", "false", undefined], app: ["web", "db"] }`. Each label step then sets or
   * removes one configured key of one object, keeping its other labels (`set-label`), in place of the default
   * `tier=web|db` step that replaces every label, and twice as often. A key with no values, or a value that is not a
   * valid label value, is a `RangeError` naming it. Without it a seed generates exactly the histories it did before.
   */
  readonly labels?: Readonly<Record<string, readonly (string | undefined)[]>>;
  /**
   * Steps of your own mixed into the histories with `weight` (default 4) next to the writes, time steps and faults.
   * Without it the histories are exactly those of the same seed before (pinned seeds stay valid).
   */
  readonly custom?: { readonly arbitrary: fc.Arbitrary<CustomStep>; readonly weight?: number };
  /**
   * Resources the history writes besides ConfigMaps: built-in kinds (objects from the simulator's OpenAPI
   * definitions), CustomResourceDefinitions (objects from their `openAPIV3Schema`; the case's cluster serves them) or
   * your own arbitraries; with spec changes (a new `generation`), status writes by another controller, deletes held by
   * a finalizer and its removal, children with owner references and the fields selectors read (see
   * {@link HistoryResource}). Each mixes into the writes with its `weight`. Without it a seed generates exactly the
   * histories it did before.
   */
  readonly resources?: readonly HistoryResource[];
}

const DEFAULT_NAMESPACES = ["default", "team-a"] as const;
const DEFAULT_NAMES = ["a", "b", "c"] as const;

const LABEL_VALUE = /^(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?$/;

/** The `set-label` steps over the configured labels (see {@link HistoryOptions.labels}); throws naming a bad one. */
function setLabelArb(
  labels: Readonly<Record<string, readonly (string | undefined)[]>>,
  namespace: fc.Arbitrary<string>,
  name: fc.Arbitrary<string>,
): fc.Arbitrary<ObjectStep> {
  const keys = Object.keys(labels);
  if (keys.length === 0) throw new RangeError("history.labels: give at least one label key");
  const perKey = keys.map((key) => {
    const values = labels[key] ?? [];
    if (!Array.isArray(values) || values.length === 0) {
      throw new RangeError(
        `history.labels: label ${JSON.stringify(key)} needs at least one value (undefined removes it)`,
      );
    }
    for (const v of values) {
      if (v !== undefined && (typeof v !== "string" || v.length > 63 || !LABEL_VALUE.test(v))) {
        throw new RangeError(
          `history.labels: ${JSON.stringify(v)} is not a valid value of label ${JSON.stringify(key)}`,
        );
      }
    }
    return fc.record({
      kind: fc.constant("set-label" as const),
      namespace,
      name,
      key: fc.constant(key),
      value: fc.constantFrom(...values),
    });
  });
  return fc.oneof(...perKey);
}

/**
 * Writes: puts (create or update), label changes (`tier=web|db`, or the configured {@link HistoryOptions.labels}),
 * large objects, deletes and delete+recreate with a new UID.
 */
export function objectStepArb(options: HistoryOptions = {}): fc.Arbitrary<ObjectStep> {
  const namespace = fc.constantFrom(...(options.namespaces ?? DEFAULT_NAMESPACES));
  const name = fc.constantFrom(...(options.names ?? DEFAULT_NAMES));
  const label: { weight: number; arbitrary: fc.Arbitrary<ObjectStep> } =
    options.labels === undefined
      ? {
          weight: 1,
          arbitrary: fc.record({
            kind: fc.constant("label" as const),
            namespace,
            name,
            tier: fc.constantFrom("web", "db"),
          }),
        }
      : { weight: 2, arbitrary: setLabelArb(options.labels, namespace, name) };
  return fc.oneof(
    { weight: 5, arbitrary: fc.record({ kind: fc.constant("put" as const), namespace, name, value: fc.nat(9) }) },
    label,
    {
      weight: 1,
      arbitrary: fc.record({ kind: fc.constant("large" as const), namespace, name, kib: fc.constantFrom(64, 512) }),
    },
    { weight: 2, arbitrary: fc.record({ kind: fc.constant("delete" as const), namespace, name }) },
    { weight: 1, arbitrary: fc.record({ kind: fc.constant("recreate" as const), namespace, name }) },
  );
}

const verb = fc.constantFrom("list" as const, "watch" as const);

/**
 * Server faults: watches dropped cleanly or with an ERROR event, compaction (→ 410 for old resourceVersions),
 * watch-cache re-initialization (with downtime), single 429 (with a generated Retry-After)/500/504 answers, bursts of
 * 500s, 504 "Too large resource version" (what a lagging watch cache answers), watchers that stop reading while
 * updates pour in (closed by the dispatch budget), truncated watch lines, bookmark modes (missing bookmarks), late
 * bookmarks and latency. Objects named by a fault step come from `options` as for {@link objectStepArb}.
 */
export function faultStepArb(options: HistoryOptions = {}): fc.Arbitrary<FaultStep> {
  const namespace = fc.constantFrom(...(options.namespaces ?? DEFAULT_NAMESPACES));
  const name = fc.constantFrom(...(options.names ?? DEFAULT_NAMES));
  return fc.oneof(
    fc.record({ kind: fc.constant("drop-watches" as const), asError: fc.boolean() }),
    fc.record({ kind: fc.constant("compact" as const) }),
    fc.record({ kind: fc.constant("reinitialize-cache" as const), downtimeMs: fc.constantFrom(0, 2000, 8000) }),
    fc.oneof(
      fc.record({
        kind: fc.constant("request-fault" as const),
        verb,
        code: fc.constantFrom(500 as const, 504 as const),
      }),
      fc.record({
        kind: fc.constant("request-fault" as const),
        verb,
        code: fc.constant(429 as const),
        retryAfterSeconds: fc.constantFrom(1, 5, 30),
      }),
    ),
    fc.record({ kind: fc.constant("too-large-rv" as const), verb }),
    fc.record({
      kind: fc.constant("stall-watchers" as const),
      namespace,
      name,
      updates: fc.constantFrom(5, 120),
    }),
    fc.record({ kind: fc.constant("late-bookmarks" as const), ms: fc.constantFrom(5_000, 90_000) }),
    fc.record({ kind: fc.constant("error-burst" as const), verb, count: fc.integer({ min: 2, max: 5 }) }),
    fc.record({ kind: fc.constant("truncate-watch" as const), afterEvents: fc.nat(2) }),
    fc.record({
      kind: fc.constant("bookmarks" as const),
      mode: fc.constantFrom("on" as const, "no-periodic" as const, "off" as const),
    }),
    fc.record({ kind: fc.constant("latency" as const), verb, ms: fc.constantFrom(100, 2000) }),
  );
}

/** Time passing: nothing, a moment, a few seconds, a minute (past bookmark and progress-notify periods). */
export function timeStepArb(): fc.Arbitrary<TimeStep> {
  return fc.record({ kind: fc.constant("wait" as const), ms: fc.constantFrom(0, 500, 1500, 60_000) });
}

/** One step: mostly writes, then time, then faults (unless `faults: false`). Shrinks towards `put`. */
export function simStepArb(options: HistoryOptions = {}): fc.Arbitrary<SimStep> {
  const parts: { weight: number; arbitrary: fc.Arbitrary<SimStep> }[] = [
    { weight: options.weights?.writes ?? 8, arbitrary: objectStepArb(options) },
    { weight: options.weights?.time ?? 3, arbitrary: timeStepArb() },
  ];
  if (options.faults !== false) parts.push({ weight: options.weights?.faults ?? 4, arbitrary: faultStepArb(options) });
  if (options.custom !== undefined)
    parts.push({ weight: options.custom.weight ?? 4, arbitrary: options.custom.arbitrary });
  const defaults = { namespaces: options.namespaces ?? DEFAULT_NAMESPACES, names: options.names ?? DEFAULT_NAMES };
  for (const r of options.resources ?? []) {
    parts.push({ weight: r.weight ?? 8, arbitrary: resourceStepArb(r, defaults) });
  }
  return fc.oneof(...parts);
}

/** A history: up to `maxSteps` (default 25) steps; shrinks by dropping steps, then simplifying each. */
export function historyArb(options: HistoryOptions = {}): fc.Arbitrary<SimStep[]> {
  // size "max": lengths spread over the whole range (fast-check's default size keeps arrays short).
  return fc.array(simStepArb(options), { maxLength: options.maxSteps ?? 25, size: "max" });
}

/** One line per step, as the failure timeline prints it. */
export function describeStep(s: SimStep): string {
  switch (s.kind) {
    case "put":
      return `put ${s.namespace}/${s.name} v=${s.value}`;
    case "label":
      return `label ${s.namespace}/${s.name} tier=${s.tier}`;
    case "set-label":
      return s.value === undefined
        ? `unlabel ${s.namespace}/${s.name} ${s.key}`
        : `label ${s.namespace}/${s.name} ${s.key}=${s.value}`;
    case "large":
      return `put ${s.namespace}/${s.name} with ${s.kib} KiB of data`;
    case "delete":
      return `delete ${s.namespace}/${s.name}`;
    case "recreate":
      return `delete and re-create ${s.namespace}/${s.name} (new uid)`;
    case "drop-watches":
      return s.asError ? "drop every watch with an ERROR event" : "drop every watch cleanly";
    case "compact":
      return "compact storage (older resourceVersions: 410 Gone)";
    case "reinitialize-cache":
      return `re-initialize the watch cache (${s.downtimeMs} ms downtime)`;
    case "request-fault":
      return `next ${s.verb} answers ${s.code}${s.code === 429 ? ` (Retry-After: ${s.retryAfterSeconds ?? 1})` : ""}`;
    case "too-large-rv":
      return `next ${s.verb} answers 504 Too large resource version (a lagging watch cache)`;
    case "stall-watchers":
      return `open watches stop reading; ${s.namespace}/${s.name} updated ${s.updates} times (full buffers: the dispatch budget closes them)`;
    case "late-bookmarks":
      return `bookmarks withheld for ${s.ms} ms, then sent late`;
    case "error-burst":
      return `next ${s.count} ${s.verb} requests answer 500`;
    case "truncate-watch":
      return `next watch cut mid-line after ${s.afterEvents} events`;
    case "bookmarks":
      return `bookmarks ${s.mode}`;
    case "latency":
      return `${s.verb} requests take ${s.ms} ms longer`;
    case "wait":
      return `wait ${s.ms} ms`;
    case "custom":
      return s.description;
    case "resource-put":
    case "resource-status":
    case "resource-field":
    case "resource-delete":
    case "resource-release":
      return describeResourceStep(s);
  }
}

const { configmaps, namespaces } = builtinResources;

/** Creates the namespaces a history writes into (those that do not exist yet). */
export async function prepareNamespaces(cluster: SimCluster, names: readonly string[] = DEFAULT_NAMESPACES) {
  for (const ns of names) {
    const exists = await cluster
      .run(() => cluster.client.get(namespaces, ns))
      .then(
        () => true,
        () => false,
      );
    if (!exists) {
      const namespace = { apiVersion: "v1", kind: "Namespace", metadata: { name: ns } };
      await cluster.run(() => cluster.client.create(namespaces, namespace));
    }
  }
}

/**
 * Applies one step to the cluster: writes go through the cluster's `KubeClient` (a write the server refuses, e.g.
 * while a fault is active, is returned as the error text rather than thrown); faults and time through the fixture.
 * Returns what happened, for the timeline.
 */
export async function applyStep(cluster: SimCluster, s: SimStep): Promise<string> {
  const c = cluster.client;
  // Under the modelled latency a request answers only as virtual time advances: each runs through `cluster.run`.
  const current = async (ns: string, name: string): Promise<KubeObject | undefined> =>
    cluster
      .run(() => c.get(configmaps, name, { namespace: ns }))
      .then(
        (o) => o as KubeObject,
        () => undefined,
      );
  const object = (ns: string, name: string, data: Record<string, string>, labels?: Record<string, string>) =>
    ({
      apiVersion: "v1",
      kind: "ConfigMap",
      metadata: { name, namespace: ns, ...(labels !== undefined && { labels }) },
      data,
    }) as KubeObject;
  const write = async (fn: () => Promise<unknown>): Promise<string> => {
    try {
      const o = (await cluster.run(fn)) as KubeObject | undefined;
      const rv = o?.metadata?.resourceVersion;
      return rv === undefined ? "ok" : `ok rv=${rv}`;
    } catch (err) {
      return `refused: ${err instanceof Error ? err.message : String(err)}`;
    }
  };
  switch (s.kind) {
    case "put":
    case "large":
    case "label":
    case "set-label": {
      const cur = await current(s.namespace, s.name);
      const data =
        s.kind === "large" ? { v: "x".repeat(s.kib * 1024) } : s.kind === "put" ? { v: String(s.value) } : cur?.data;
      let labels = s.kind === "label" ? { tier: s.tier } : cur?.metadata?.labels;
      if (s.kind === "set-label") {
        const { [s.key]: _dropped, ...others } = labels ?? {};
        labels = s.value === undefined ? others : { ...others, [s.key]: s.value };
      }
      const obj = object(s.namespace, s.name, (data ?? {}) as Record<string, string>, labels);
      if (cur === undefined) return write(() => c.create(configmaps, obj));
      return write(() =>
        c.update(configmaps, { ...obj, metadata: { ...obj.metadata, resourceVersion: cur.metadata?.resourceVersion } }),
      );
    }
    case "delete":
      if ((await current(s.namespace, s.name)) === undefined) return "absent";
      return write(() => c.delete(configmaps, s.name, { namespace: s.namespace }));
    case "recreate": {
      if ((await current(s.namespace, s.name)) !== undefined) {
        await cluster.run(() => c.delete(configmaps, s.name, { namespace: s.namespace })).catch(() => undefined);
      }
      return write(() => c.create(configmaps, object(s.namespace, s.name, { v: "re" })));
    }
    case "drop-watches":
      return `${cluster.faults.dropWatches(undefined, s.asError)} watches ended`;
    case "compact":
      return `compacted to rv=${cluster.faults.compact()}`;
    case "reinitialize-cache":
      cluster.faults.reinitializeCache("configmaps", s.downtimeMs);
      return "ok";
    case "request-fault":
      if (s.code === 429) {
        cluster.faults.request({
          type: "apf-429",
          verbs: [s.verb],
          count: 1,
          retryAfterSeconds: s.retryAfterSeconds ?? 1,
        });
      } else {
        cluster.faults.request({ type: "status", code: s.code, verbs: [s.verb], count: 1 });
      }
      return "armed";
    case "too-large-rv": {
      // A watch cache behind storage answers this after its 3 s freshness wait (the legacy message form: no cause).
      const rv = cluster.engine.currentResourceVersion;
      cluster.faults.request({
        type: "status",
        code: 504,
        verbs: [s.verb],
        count: 1,
        retryAfterSeconds: 1,
        message: `Too large resource version: ${rv + 1}, current: ${rv}`,
      });
      return "armed";
    }
    case "stall-watchers": {
      const stalled = cluster.faults.stallWatchers();
      let obj = await current(s.namespace, s.name);
      let done = 0;
      for (let i = 0; i < s.updates; i++) {
        const data = { v: `stall-${i}` };
        try {
          const prev = obj;
          obj = (await cluster.run(() =>
            prev === undefined
              ? c.create(configmaps, object(s.namespace, s.name, data))
              : c.update(configmaps, { ...prev, data }),
          )) as KubeObject;
          done++;
        } catch {
          obj = await current(s.namespace, s.name);
        }
      }
      // The dispatcher waits for full buffers with its budget (100 ms), then closes what is still full.
      await cluster.clock.step(1000);
      const left = cluster.engine.caches.watcherInfo().filter((w) => w.stalled).length;
      return `${stalled} watches stalled, ${done} updates, ${left} stalled watches still open`;
    }
    case "late-bookmarks":
      cluster.faults.delayBookmarks(s.ms);
      return "ok";
    case "error-burst":
      cluster.faults.request({ type: "status", code: 500, verbs: [s.verb], count: s.count });
      return "armed";
    case "truncate-watch":
      cluster.faults.request({ type: "truncate-watch", verbs: ["watch"], count: 1, afterEvents: s.afterEvents });
      return "armed";
    case "bookmarks":
      cluster.faults.bookmarks(s.mode);
      return "ok";
    case "latency":
      cluster.faults.latency({ ms: s.ms, verbs: [s.verb], resource: "configmaps" });
      return "ok";
    case "wait":
      await cluster.clock.step(s.ms);
      return "ok";
    case "resource-put":
    case "resource-status":
    case "resource-field":
    case "resource-delete":
    case "resource-release":
      return applyResourceStep(cluster, s);
    case "custom":
      try {
        // Its requests answer only as virtual time advances (the modelled latency): run it as cluster.run does.
        return await cluster.run(() => s.apply(cluster));
      } catch (err) {
        return `threw: ${err instanceof Error ? err.message : String(err)}`;
      }
  }
}
