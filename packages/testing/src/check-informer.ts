import type { KubeObject } from "@informer-ts/apimachinery";
import {
  DeletedFinalStateUnknown,
  newSharedIndexInformer,
  type ResourceEventHandler,
  type SharedIndexInformer,
  silentLogger,
} from "@informer-ts/cache";
import { builtinResources, listWatchFor } from "@informer-ts/client";
import { seededRand } from "@informer-ts/clock";
import fc from "fast-check";
import {
  applyStep,
  describeStep,
  type HistoryOptions,
  historyArb,
  prepareNamespaces,
  type SimStep,
} from "./arbitraries.js";
import { type BystanderPlan, bystanderHandler, bystandersArb, describeBystander } from "./handler-behaviours.js";
import { seedFromEnv } from "./internal/replay-seed.js";
import { stopCase } from "./internal/stop-case.js";
import { renderFailure } from "./internal/timeline.js";
import {
  handlerViewConverges,
  type InvariantReport,
  notificationsOrdered,
  type RecordedNotification,
  type SyncObservation,
  storeConverges,
  syncedHonest,
} from "./invariants.js";
import { createSimCluster, type SimCluster, type SimTransport } from "./sim-cluster.js";

const { configmaps } = builtinResources;

/** What a {@link CheckInformerOptions.informer} factory and extra invariants get for one generated case. */
export interface InformerCase {
  readonly cluster: SimCluster;
  /** Whether this case's reflector uses watch-list (generated). */
  readonly useWatchList: boolean;
}

/** Options of {@link checkInformer}. */
export interface CheckInformerOptions {
  /** Generated cases (default 100). */
  readonly numRuns?: number;
  /**
   * fast-check seed (default 42, so CI runs are reproducible). `FC_SEED=<n>` in the environment overrides it (to replay
   * a printed failure); `FC_SEED=random` draws one, printed with any failure.
   */
  readonly seed?: number;
  /** `in-process` (default) or `http`. */
  readonly transport?: SimTransport;
  /** Shape of the generated histories. */
  readonly history?: HistoryOptions;
  /**
   * Runs once per case before anything starts, after the history's namespaces exist: pre-populate the cluster (for
   * example thousands of objects through `cluster.engine`, which bypasses the request log).
   */
  readonly prepare?: (cluster: SimCluster) => Promise<void> | void;
  /** The informer under test (default: a shared informer on ConfigMaps in every namespace, via the cluster's client). */
  readonly informer?: (c: InformerCase) => SharedIndexInformer<KubeObject>;
  /**
   * Your handler: it gets every notification after the kit recorded it; an exception it throws is a violation. A
   * function is called once per case, before the informer starts, for a handler that keeps state (a fresh one each
   * case); your `invariants` can then judge that state.
   */
  readonly handler?: ResourceEventHandler<KubeObject> | ((c: InformerCase) => ResourceEventHandler<KubeObject>);
  /** How long the quiet phase may take to converge (virtual time, default 15 minutes). */
  readonly convergeWithinMs?: number;
  /** More invariants, checked at quiescence. */
  readonly invariants?: (c: InformerCase) => InvariantReport[];
  /**
   * Also generate bystander handlers on the same informer — slow, throwing, async-rejecting, added and removed
   * mid-run — whose misbehaviour must not disturb the checked handler (default false).
   */
  readonly bystanders?: boolean;
  /** Where the failure report goes besides the thrown error (default nowhere). */
  readonly log?: (text: string) => void;
}

/** The outcome of {@link checkInformer} when every case passed. */
export interface CheckResult {
  readonly numRuns: number;
  readonly seed: number;
}

/** One line of a failure timeline. */
export interface TimelineEntry {
  /** Virtual ms since the case started. */
  readonly at: number;
  readonly kind: "step" | "request" | "notification" | "handler-error" | "reconcile" | "phase";
  readonly text: string;
}

/** The result of one case: every invariant's report and the case's timeline. */
export interface CaseOutcome {
  readonly reports: InvariantReport[];
  readonly timeline: TimelineEntry[];
}

/** One case of {@link checkInformer}, for replaying a given history by hand. */
export interface InformerCaseInput {
  readonly useWatchList: boolean;
  readonly steps: readonly SimStep[];
  /** Seed of the simulator's and the informer's randomness. */
  readonly seed: number;
  /** Bystander handlers (default none). */
  readonly bystanders?: readonly BystanderPlan[];
}

/**
 * Runs one case of {@link checkInformer} with a given history (no generation, no shrinking) and returns the
 * invariant reports and the timeline; never rejects for a violation. Useful to pin a found counterexample as a
 * regression test.
 */
export function runInformerCase(options: CheckInformerOptions, input: InformerCaseInput): Promise<CaseOutcome> {
  return runCase(options, input.useWatchList, input.steps, input.seed, input.bystanders ?? []);
}

const keyOf = (o: KubeObject) => `${o.metadata?.namespace ?? ""}/${o.metadata?.name ?? ""}`;

/** Runs one generated case and returns its invariant reports and timeline (never throws for a violation). */
async function runCase(
  options: CheckInformerOptions,
  useWatchList: boolean,
  steps: readonly SimStep[],
  caseSeed: number,
  bystanders: readonly BystanderPlan[],
): Promise<CaseOutcome> {
  const cluster = await createSimCluster({ seed: caseSeed, transport: options.transport ?? "in-process" });
  const start = cluster.clock.now();
  const timeline: TimelineEntry[] = [];
  const at = () => Math.round(cluster.clock.now() - start);
  const log = (kind: TimelineEntry["kind"], text: string) => timeline.push({ at: at(), kind, text });
  const notes: RecordedNotification[] = [];
  /** The handler's view: `notes` replayed, kept up to date as they arrive. */
  const view = new Map<string, string>();
  const observations: SyncObservation[] = [];
  const handlerErrors: string[] = [];
  const ctx: InformerCase = { cluster, useWatchList };
  let seenRequests = 0;
  const drainRequests = () => {
    for (; seenRequests < cluster.requests.length; seenRequests++) {
      const r = cluster.requests[seenRequests]!;
      if (r.resource !== "configmaps") continue;
      const served = r.servedFrom === "" ? "" : ` from ${r.servedFrom}`;
      timeline.push({
        at: r.receivedAt === undefined ? at() : Math.round(r.receivedAt - start),
        kind: "request",
        text: `${r.verb} ${r.requestURI} → ${r.code}${served}`,
      });
    }
  };
  const ac = new AbortController();
  let running: Promise<void> | undefined;
  try {
    await prepareNamespaces(cluster, options.history?.namespaces);
    await options.prepare?.(cluster);
    const informer =
      options.informer?.(ctx) ??
      newSharedIndexInformer<KubeObject>(listWatchFor(cluster.client, configmaps), undefined, {
        clock: cluster.clock,
        rand: seededRand(caseSeed),
        name: "checkInformer",
        logger: silentLogger,
        reflector: { useWatchList, logger: silentLogger },
      });
    const user = typeof options.handler === "function" ? options.handler(ctx) : options.handler;
    const guard = (what: string, fn: (() => void) | undefined) => {
      if (fn === undefined) return;
      try {
        fn();
      } catch (err) {
        const msg = `${what}: ${err instanceof Error ? err.message : String(err)}`;
        handlerErrors.push(`@${at()} ${msg}`);
        log("handler-error", msg);
      }
    };
    const registration = informer.addEventHandler({
      onAdd: (o, initial) => {
        notes.push({ type: "add", at: at(), key: keyOf(o), rv: o.metadata?.resourceVersion ?? "", initial });
        view.set(keyOf(o), o.metadata?.resourceVersion ?? "");
        log("notification", `add ${keyOf(o)} rv=${o.metadata?.resourceVersion}${initial ? " (initial list)" : ""}`);
        guard(`onAdd(${keyOf(o)})`, user?.onAdd && (() => user.onAdd!(o, initial)));
      },
      onUpdate: (old, o) => {
        const oldRv = old.metadata?.resourceVersion ?? "";
        notes.push({ type: "update", at: at(), key: keyOf(o), oldRv, rv: o.metadata?.resourceVersion ?? "" });
        view.set(keyOf(o), o.metadata?.resourceVersion ?? "");
        log("notification", `update ${keyOf(o)} rv=${oldRv}→${o.metadata?.resourceVersion}`);
        guard(`onUpdate(${keyOf(o)})`, user?.onUpdate && (() => user.onUpdate!(old, o)));
      },
      onDelete: (o) => {
        const tomb = o instanceof DeletedFinalStateUnknown;
        const obj = (tomb ? o.obj : o) as KubeObject | undefined;
        const key = tomb ? o.key : keyOf(o as KubeObject);
        notes.push({ type: "delete", at: at(), key, rv: obj?.metadata?.resourceVersion, tombstone: tomb });
        view.delete(key);
        log("notification", `delete ${key}${tomb ? " (DeletedFinalStateUnknown)" : ""}`);
        guard(`onDelete(${key})`, user?.onDelete && (() => user.onDelete!(o)));
      },
    });
    // Only observations with hasSynced true can break syncedHonest, and only by store keys the handler was never
    // given: record just those (the handler's view is kept up to date notification by notification), so that a
    // case of thousands of objects and hundreds of steps stays linear.
    const observe = () => {
      if (!registration.hasSynced()) return;
      const missing: string[] = [];
      const store = informer.getStore();
      // Store keys are `namespace/name` (the view's keys) for namespaced objects: only a key the view lacks needs
      // the object's own key, so the common case allocates nothing per object.
      for (const sk of store.listKeys()) {
        if (view.has(sk)) continue;
        const o = store.getByKey(sk);
        const k = o === undefined ? sk : keyOf(o as KubeObject);
        if (!view.has(k)) missing.push(k);
      }
      if (missing.length > 0) {
        observations.push({ at: at(), synced: true, storeKeys: missing, notifiedKeys: [] });
      }
    };
    running = informer.run(ac.signal);
    log("phase", `informer started (${useWatchList ? "watch-list" : "list+watch"}, ${cluster.transport})`);
    const quiesce = async () => {
      await cluster.settle({ maxMs: 0 }).catch(() => undefined);
      drainRequests();
      observe();
    };
    const registered = new Map<BystanderPlan, ReturnType<typeof informer.addEventHandler>>();
    const bystandersAt = (i: number) => {
      for (const p of bystanders) {
        if (p.addAfter === i) {
          registered.set(p, informer.addEventHandler(bystanderHandler(p.behaviour, cluster.clock)));
          log("phase", `added ${describeBystander(p)}`);
        }
        const reg = registered.get(p);
        if (p.removeAfter === i && reg !== undefined) {
          informer.removeEventHandler(reg);
          registered.delete(p);
          log("phase", `removed ${describeBystander(p)}`);
        }
      }
    };
    bystandersAt(0);
    await quiesce();
    for (const [i, s] of steps.entries()) {
      const outcome = await applyStep(cluster, s);
      log("step", `${describeStep(s)} → ${outcome}`);
      bystandersAt(i + 1);
      await quiesce();
    }
    cluster.faults.clearAll();
    log("phase", "faults cleared; waiting for convergence");
    const truth = () => configMapVersions(cluster);
    const storeState = () =>
      new Map(
        informer
          .getStore()
          .list()
          .map((o) => [keyOf(o as KubeObject), (o as KubeObject).metadata?.resourceVersion ?? ""]),
      );
    const same = (a: Map<string, string>, b: Map<string, string>) =>
      a.size === b.size && [...a].every(([k, v]) => b.get(k) === v);
    await cluster
      .settle({
        maxMs: options.convergeWithinMs ?? 15 * 60_000,
        until: () => {
          observe();
          const t = truth();
          return registration.hasSynced() && same(storeState(), t) && same(view, t);
        },
      })
      .catch((err: unknown) => log("phase", `did not converge: ${err instanceof Error ? err.message : String(err)}`));
    drainRequests();
    const t = truth();
    const reports = [
      storeConverges(storeState(), t),
      handlerViewConverges(notes, t),
      notificationsOrdered(notes),
      syncedHonest(observations),
      { name: "handlerNeverThrows", ok: handlerErrors.length === 0, violations: handlerErrors.slice(0, 10) },
      ...(options.invariants?.(ctx) ?? []),
    ];
    // Stopping may need virtual time (a slow handler sleeping on the clock): never await it without moving time.
    let stopped = false;
    const stopping = running.then(
      () => {
        stopped = true;
      },
      () => {
        stopped = true;
      },
    );
    ac.abort();
    reports.push(
      ...(await stopCase(cluster, {
        what: "informer.run",
        stopped: () => stopped,
        withinMs: 60_000,
        alsoUntil: () => cluster.server.stats.openWatches === 0,
      })),
    );
    if (stopped) {
      await stopping;
      running = undefined;
    }
    return { reports, timeline };
  } finally {
    ac.abort();
    // A run that did not stop is reported above; awaiting it here could hang on a clock nobody advances.
    void running?.catch(() => undefined);
    await cluster.close();
  }
}

/** The server's ConfigMaps as `namespace/name → resourceVersion`, read from storage (no request is made). */
function configMapVersions(cluster: SimCluster): Map<string, string> {
  const r = cluster.engine.resource("configmaps");
  return new Map(
    cluster.engine.storage
      .snapshot(r)
      .map(([, o]) => [`${o.metadata?.namespace ?? ""}/${o.metadata?.name ?? ""}`, o.metadata?.resourceVersion ?? ""]),
  );
}

/** Renders a failure: the seed, how to replay it, the failed invariants and the case's timeline. */
export function formatFailure(
  seed: number,
  useWatchList: boolean,
  steps: readonly SimStep[],
  outcome: CaseOutcome,
  bystanders: readonly BystanderPlan[] = [],
): string {
  return renderFailure(
    "checkInformer",
    seed,
    [
      `  reflector: ${useWatchList ? "watch-list" : "list+watch"}; history (${steps.length} steps, shrunk):`,
      ...steps.map((s) => `    - ${describeStep(s)}`),
      ...(bystanders.length > 0 ? ["  bystander handlers:"] : []),
      ...bystanders.map((b) => `    - ${describeBystander(b)}`),
    ],
    outcome.reports,
    outcome.timeline,
  );
}

/**
 * Property-tests an informer against the simulated cluster: fast-check generates histories of writes, server faults
 * and time steps; each case runs the informer (and your handler) through one history, ends the faults, lets the
 * system settle, and checks `storeConverges`, `handlerViewConverges`, `notificationsOrdered`, `syncedHonest`,
 * `handlerNeverThrows` (your handler threw) and `noLeaks`, plus your own invariants. Resolves when every case
 * passed; otherwise rejects with an `Error` whose message is the shrunk case as a readable timeline, its seed and
 * how to replay it (`FC_SEED=<seed>`). Test-runner agnostic (vitest, node:test, …): it only returns a promise.
 */
export async function checkInformer(options: CheckInformerOptions = {}): Promise<CheckResult> {
  const seed = seedFromEnv(options.seed ?? 42);
  const numRuns = options.numRuns ?? 100;
  let caseNo = 0;
  const property = fc.asyncProperty(
    fc.boolean(),
    historyArb(options.history),
    fc.integer({ min: 1, max: 1_000_000 }),
    options.bystanders === true ? bystandersArb(options.history?.maxSteps ?? 25) : fc.constant<BystanderPlan[]>([]),
    async (useWatchList, steps, caseSeed, bystanders) => {
      caseNo++;
      const outcome = await runCase(options, useWatchList, steps, caseSeed, bystanders);
      return outcome.reports.every((r) => r.ok);
    },
  );
  const details = await fc.check(property, { numRuns, seed });
  if (!details.failed) return { numRuns: details.numRuns, seed };
  const counterexample = details.counterexample;
  if (counterexample === null) {
    throw new Error(`checkInformer: seed ${seed} failed without a counterexample: ${String(details.errorInstance)}`);
  }
  const [useWatchList, steps, caseSeed, bystanders] = counterexample;
  // Re-run the shrunk case once to record its timeline (the run is a pure function of its inputs in-process).
  const outcome = await runCase(options, useWatchList, steps, caseSeed, bystanders);
  const text = `${formatFailure(seed, useWatchList, steps, outcome, bystanders)}\n  (fast-check path ${details.counterexamplePath}; ${caseNo} cases run)`;
  options.log?.(text);
  throw new Error(text);
}
