import type { KubeObject } from "@informer-ts/apimachinery";
import {
  DeletedFinalStateUnknown,
  type ListerWatcher,
  type ResourceEventHandler,
  type ResourceEventHandlerRegistration,
  type SharedInformer,
} from "@informer-ts/cache";
import { builtinResources, listWatchFor } from "@informer-ts/client";
import type { SimResource } from "@informer-ts/sim-apiserver";
import fc from "fast-check";
import {
  applyStep,
  describeStep,
  type HistoryOptions,
  historyArb,
  prepareNamespaces,
  type SimStep,
} from "./arbitraries.js";
import { noProgressWatch } from "./internal/no-progress.js";
import { seedFromEnv } from "./internal/replay-seed.js";
import { checkPropertyName, formatReplayToken, parseReplayToken, replayFromEnv } from "./internal/replay-token.js";
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
import type { SimLatency } from "./latency-model.js";
import { historySimResources } from "./resource-steps.js";
import { type ServerState, serverState } from "./server-state.js";
import { createSimCluster, type SimCluster, type SimTransport } from "./sim-cluster.js";

const { configmaps } = builtinResources;

/** The outcome of a runner when every case passed. */
export interface CheckResult {
  /** Cases run (fewer than asked when `timeLimitMs` interrupted the search). */
  readonly numRuns: number;
  readonly seed: number;
  /** True when `timeLimitMs` stopped the search before `numRuns` cases. */
  readonly interrupted?: true;
}

/**
 * Runs one case given by hand or by a printed replay token (regenerated exactly: same seed, same path; nothing is
 * searched or shrunk). A token's outcome carries its `story`, the failure text as the runner printed it (without the
 * runner's closing count), so a replay can be compared byte for byte.
 */
export async function runCaseWith<V>(
  spec: SubjectSpec<V>,
  options: PropertyOptions,
  variantArb: fc.Arbitrary<V>,
  input:
    | {
        readonly useWatchList: boolean;
        readonly steps: readonly SimStep[];
        readonly seed: number;
        readonly variant?: V;
      }
    | string,
): Promise<CaseOutcome> {
  if (typeof input !== "string") {
    return runSubjectCaseWith(spec, options, { ...input, variant: input.variant as V });
  }
  const found = caseOfToken(spec, options, variantArb, input);
  const outcome = await runSubjectCaseWith(spec, options, found);
  const t = parseReplayToken(input);
  const story = renderSubjectFailure(spec, { token: input.trim(), caseSeed: found.seed, seed: t.seed }, found, outcome);
  return { ...outcome, story };
}

/** One line of a failure timeline. */
export interface TimelineEntry {
  /** Virtual ms since the case started. */
  readonly at: number;
  readonly kind: "step" | "request" | "notification" | "handler-error" | "reconcile" | "phase" | "simulator";
  readonly text: string;
}

/** The result of one case: every invariant's report and the case's timeline. */
export interface CaseOutcome {
  readonly reports: InvariantReport[];
  readonly timeline: TimelineEntry[];
  /** With a replay token: the case's story, exactly as the runner printed it (without its closing count line). */
  readonly story?: string;
}

/** The options every history runner shares ({@link checkSubject}, `checkInformer`). */
export interface PropertyOptions {
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
   * How long requests, watch delivery and the simulator's controllers take in virtual time: `modelled` (default, from
   * the simulator's cost model) or `zero` (see {@link SimLatency}).
   */
  readonly latency?: SimLatency;
  /**
   * Runs once per case before anything starts, after the history's namespaces exist: pre-populate the cluster (for
   * example thousands of objects through `cluster.engine`, which bypasses the request log).
   */
  readonly prepare?: (cluster: SimCluster) => Promise<void> | void;
  /** How long the quiet phase may take to converge (virtual time, default 15 minutes). */
  readonly convergeWithinMs?: number;
  /**
   * When the quiet phase gives up early (default 120 000 virtual ms): the case cannot converge any more, so the quiet
   * phase ends instead of waiting out {@link PropertyOptions.convergeWithinMs} — the story then stops where the
   * progress did, not after 15 virtual minutes of watch renewals. The default is twice the longest reflector backoff
   * with jitter (30 s, up to 60 s), so caches that relist after the faults still catch up; once the faults are cleared
   * every paused watch resumes, so nothing else is waited for.
   * - `checkInformer`, `checkSubject`: once neither the server's state nor the subject's (its store's keys and
   *   resourceVersions, its recorded notifications, whether it synced) changed for this long after the storage's
   *   compaction covered the last change's revision (the simulator compacts every 5 virtual minutes, up to the
   *   revision of the check before: a compaction can unblock a reflector that relists at a resourceVersion a
   *   re-initialized watch cache no longer serves, as client-go's does). A failed case so ends some 7–12 virtual
   *   minutes after its last change instead of waiting out 15.
   * - `checkController`: once the server's state has not changed for this long, no reconcile is running and every
   *   key whose last reconcile failed or asked to requeue was retried after the faults ended (so its failure is not a
   *   fault's leftover); a reconcile that ran concurrently with another of its key ends the quiet phase at once (the
   *   case already failed). A key waiting on a long `requeueAfter` is waited for anyway (it was not retried yet).
   *
   * Raise it for a subject that may go longer without a change, such as one driven by a resync period.
   */
  readonly noProgressWithinMs?: number;
  /** Where the failure report goes besides the thrown error (default nowhere). */
  readonly log?: (text: string) => void;
  /**
   * Names the property in its replay token (default the runner's name: `checkController`, `checkInformer`,
   * `checkSubject`). Give each property of a run its own name so that `FC_REPLAY` touches only it. No `/` or spaces.
   */
  readonly property?: string;
  /**
   * Real-time budget in ms (fast-check's `interruptAfterTimeLimit`): once spent, no new case starts — also while
   * shrinking, which then reports the smallest counterexample found so far. A case already running finishes. Give it
   * less than your test runner's timeout (vitest's `testTimeout`), so that the story prints before the runner gives
   * up on the test. Default: none.
   */
  readonly timeLimitMs?: number;
  /** More fast-check parameters, passed through (`verbose`, `markInterruptAsFailure`, `skipAllAfterTimeLimit`, …). */
  readonly fastCheck?: FastCheckParameters;
}

/** Something that notifies handlers and keeps a store of what it notified: a `SharedInformer`, typically. */
export type NotificationSource = Pick<SharedInformer<KubeObject>, "addEventHandler" | "getStore">;

/**
 * What a subject's cache must equal at quiescence, read from the server's storage: the objects a selector-scoped
 * subject should hold (`(s) => s.list(pods).filter((p) => p.status?.phase === "Running")` for an informer with
 * `fieldSelector: "status.phase=Running"`). Default: every ConfigMap. Compared by `namespace/name` and
 * resourceVersion, like the default.
 */
export type ServerView = (state: ServerState) => readonly KubeObject[];

/** What the subject under test gets for one generated case of {@link checkSubject}. */
export interface SubjectCase<V = undefined> {
  readonly cluster: SimCluster;
  /** Whether this case's reflector should use watch-list (generated; the subject decides what to do with it). */
  readonly useWatchList: boolean;
  /** This case's generated variant (see {@link CheckSubjectOptions.variant}); `undefined` without one. */
  readonly variant: V;
  /** The case's seed: seed the subject's randomness with it (`seededRand(c.seed)`) so the case replays exactly. */
  readonly seed: number;
  /** ConfigMaps in every namespace through the cluster's `KubeClient`: what the generated histories write. */
  readonly listerWatcher: ListerWatcher<KubeObject>;
  /** Aborted when the case ends, just before {@link SubjectUnderTest.stop} is called: pass it to `run(signal)`. */
  readonly signal: AbortSignal;
  /** Virtual ms since the case started (the timeline's clock). */
  now(): number;
  /** True while a step of the history is being applied (its writes, not the subject, drive what happens then). */
  applyingStep(): boolean;
  /** How many steps of the history were applied so far (the one being applied not included). */
  stepsApplied(): number;
  /** Writes (create, update, patch, delete) the history's steps made at or after virtual ms `since`. */
  historyWrites(since: number): number;
  /** Adds a line to the case's timeline (printed with a failure). */
  log(kind: TimelineEntry["kind"], text: string): void;
  /**
   * Registers a recording handler on `informer` (in front of `handler`, if given): every notification goes into the
   * timeline, and the case checks this registration's `handlerViewConverges`, `notificationsOrdered`, `syncedHonest`
   * (against `informer.getStore()`) and `handlerNeverThrows` (an exception `handler` throws is a violation, never
   * rethrown); the quiet phase waits until the registration has synced and its view equals the server's. `label`
   * names the registration in the report names when a case records several (`handlerViewConverges (label)`).
   */
  recordNotifications(
    informer: NotificationSource,
    handler?: ResourceEventHandler<KubeObject>,
    label?: string,
  ): ResourceEventHandlerRegistration;
}

/**
 * A running subject under test, as its factory returns it: what it caches, whether it synced, its own checks and how
 * to stop it. The kit compares `store` with the server's ConfigMaps (`storeConverges`: keys and resourceVersions).
 */
export interface SubjectUnderTest {
  /** The subject's cache of the cluster's ConfigMaps (a `Store`, an indexer, a `reflect` target…). */
  readonly store: { list(): readonly KubeObject[] };
  /** True once the subject has synced; the quiet phase waits for it (with the store equal to the server's). */
  hasSynced(): boolean;
  /** Called at every quiescent point (after each step, and while the quiet phase polls): take observations here. */
  observe?(): void;
  /** Called with 0 before the first step, then with the number of steps applied so far, after each step. */
  afterStep?(applied: number): void;
  /** The subject's own invariants, checked at quiescence (before it stops). */
  invariants?(): InvariantReport[];
  /**
   * Stops the subject (the case's `signal` is already aborted); resolves once it released everything. It may need
   * virtual time: the kit advances the clock while waiting (60 virtual seconds at most, else a `stops` violation);
   * a rejection is a `stops` violation.
   */
  // biome-ignore lint/suspicious/noConfusingVoidType: a stop that returns nothing (`() => sub.unsubscribe()`) is typed `void`
  stop?(): Promise<unknown> | void;
}

/** Options of {@link checkSubject}. */
export interface CheckSubjectOptions<V = undefined> extends PropertyOptions {
  /**
   * Starts the subject under test on the case's cluster (`c.listerWatcher`, `c.cluster.client`, `c.cluster.clock`)
   * once per generated case, before the first step. An exception is a `subjectStarts` violation.
   */
  readonly subject: (c: SubjectCase<V>) => SubjectUnderTest | Promise<SubjectUnderTest>;
  /** Names the subject in the timeline and the stop violation (default `subject`). */
  readonly name?: string;
  /**
   * Generates a variant of the subject per case (options such as a page size), shrunk and printed with a failure;
   * the factory reads it as `c.variant`. Default: none (`undefined`).
   */
  readonly variant?: fc.Arbitrary<V>;
  /** Prints a variant in a failure's story (default `JSON.stringify`). */
  readonly describeVariant?: (variant: V) => string;
  /** More invariants, checked at quiescence. */
  readonly invariants?: (c: SubjectCase<V>) => InvariantReport[];
  /**
   * What the subject's store (and every recorded registration's view) must equal at quiescence (default the server's
   * ConfigMaps): the server's filtered view for a subject with a label or field selector, or over another resource.
   */
  readonly serverView?: ServerView;
}

/** One case of {@link checkSubject}, for replaying a history by hand with {@link runSubjectCase}. */
export interface SubjectCaseInput<V = undefined> {
  readonly useWatchList: boolean;
  readonly steps: readonly SimStep[];
  /** Seed of the simulator's randomness (and `c.seed`). */
  readonly seed: number;
  /** The variant (omit it when the subject has none). */
  readonly variant?: V;
}

/** How a runner built on the subject core names and starts its subject, and tells its story (internal). */
export interface SubjectSpec<V> {
  /** The runner's name, heading a failure (`checkInformer`). */
  readonly checker: string;
  /** The subject's name in the timeline (`informer started`). */
  readonly name: string;
  /** Names the run in the `stops` violation (`informer.run`). */
  readonly stopWhat: string;
  readonly subject: (c: SubjectCase<V>) => CoreSubject | Promise<CoreSubject>;
  readonly invariants?: (c: SubjectCase<V>) => InvariantReport[];
  /** Resources the cluster serves besides the built-in ones. */
  readonly resources?: readonly SimResource[];
  /** What the subject's store must equal (default the server's ConfigMaps). */
  readonly serverView?: ServerView;
  /**
   * `configmaps` (default): the timeline shows the ConfigMap requests, drained at quiescent points. `all`: every
   * request, drained before each entry (so the timeline reads in completion order) and after the stop.
   */
  readonly requests?: "configmaps" | "all";
  /** Virtual ms the subject may take to stop (default 60 s). */
  readonly stopWithinMs?: number;
  /** Whether the stop wait also waits for every watch to close (default true). */
  readonly stopClosesWatches?: boolean;
  /**
   * Whether the subject ends its own quiet phase when it cannot converge (through `hasSynced`, as `checkController`
   * does); otherwise the core gives up after {@link PropertyOptions.noProgressWithinMs} without a change.
   */
  readonly givesUpItself?: boolean;
  /** The story's head line (before the steps) and its tail (after them). */
  story(useWatchList: boolean, variant: V, steps: readonly SimStep[]): { head: string; tail: readonly string[] };
}

/**
 * A subject as the core runs it: a {@link SubjectUnderTest} whose store is optional (without one there is no
 * `storeConverges`, and the quiet phase waits for `hasSynced` alone) and which may need to get ready before the steps.
 */
export interface CoreSubject extends Omit<SubjectUnderTest, "store"> {
  readonly store?: SubjectUnderTest["store"];
  /** Waited for (120 virtual seconds at most) before the first step; a timeout is logged, not a violation. */
  ready?(): boolean;
  /** Called once the history is applied and the faults cleared, just before the quiet phase starts. */
  settling?(): void;
}

const WRITE_VERBS = new Set(["create", "update", "patch", "delete", "deletecollection", "apply"]);

/** With the modelled latency, the most virtual time a step's aftermath may take before the next step comes anyway. */
const STEP_QUIET_MS = 5_000;

const keyOf = (o: KubeObject) => `${o.metadata?.namespace ?? ""}/${o.metadata?.name ?? ""}`;
const errText = (err: unknown) => (err instanceof Error ? err.message : String(err));

/** The server's ConfigMaps as `namespace/name → resourceVersion`, read from storage (no request is made). */
function configMapVersions(cluster: SimCluster): Map<string, string> {
  const r = cluster.engine.resource("configmaps");
  return new Map(
    cluster.engine.storage
      .snapshot(r)
      .map(([, o]) => [`${o.metadata?.namespace ?? ""}/${o.metadata?.name ?? ""}`, o.metadata?.resourceVersion ?? ""]),
  );
}

const versions = (objs: readonly KubeObject[]) =>
  new Map(objs.map((o) => [keyOf(o), o.metadata?.resourceVersion ?? ""]));
const same = (a: ReadonlyMap<string, string>, b: ReadonlyMap<string, string>) =>
  a.size === b.size && [...a].every(([k, v]) => b.get(k) === v);

/** One registration recorded by {@link SubjectCase.recordNotifications}. */
interface Recorder {
  readonly label: string | undefined;
  readonly source: NotificationSource;
  readonly registration: ResourceEventHandlerRegistration;
  readonly notes: RecordedNotification[];
  /** The notifications replayed, kept up to date as they arrive. */
  readonly view: Map<string, string>;
  readonly observations: SyncObservation[];
  readonly errors: string[];
}

/** The resources a case's cluster serves: the runner's, and the history's CRDs it does not list already. */
function servedResources(listed: readonly SimResource[], history: HistoryOptions | undefined): SimResource[] {
  const id = (r: SimResource) => `${r.resource}.${r.group}`;
  const known = new Set(listed.map(id));
  return [...listed, ...historySimResources(history?.resources).filter((r) => !known.has(id(r)))];
}

/** Runs one case of a subject runner and returns its reports and timeline (never throws for a violation). */
export async function runSubjectCaseWith<V>(
  spec: SubjectSpec<V>,
  options: PropertyOptions,
  input: { readonly useWatchList: boolean; readonly steps: readonly SimStep[]; readonly seed: number; variant: V },
): Promise<CaseOutcome> {
  const { useWatchList, steps, variant } = input;
  const noProgressMs = options.noProgressWithinMs ?? 120_000;
  if (!(Number.isFinite(noProgressMs) && noProgressMs > 0)) {
    throw new RangeError(`${spec.checker}: noProgressWithinMs must be a number > 0, got ${noProgressMs}`);
  }
  const cluster = await createSimCluster({
    seed: input.seed,
    transport: options.transport ?? "in-process",
    latency: options.latency ?? "modelled",
    resources: servedResources(spec.resources ?? [], options.history),
  });
  const allRequests = spec.requests === "all";
  const start = cluster.clock.now();
  const timeline: TimelineEntry[] = [];
  const at = () => Math.round(cluster.clock.now() - start);
  const log = (kind: TimelineEntry["kind"], text: string) => {
    if (allRequests) drainRequests();
    timeline.push({ at: at(), kind, text });
  };
  let seenRequests = 0;
  const drainRequests = () => {
    for (; seenRequests < cluster.requests.length; seenRequests++) {
      const r = cluster.requests[seenRequests]!;
      if (!allRequests && r.resource !== "configmaps") continue;
      const served = r.servedFrom === "" ? "" : ` from ${r.servedFrom}`;
      timeline.push({
        at: r.receivedAt === undefined ? at() : Math.round(r.receivedAt - start),
        kind: "request",
        text: `${r.verb} ${r.requestURI} → ${r.code}${served}`,
      });
    }
  };
  const recorders: Recorder[] = [];
  const record = (
    source: NotificationSource,
    user: ResourceEventHandler<KubeObject> | undefined,
    label: string | undefined,
  ): ResourceEventHandlerRegistration => {
    const notes: RecordedNotification[] = [];
    const view = new Map<string, string>();
    const errors: string[] = [];
    const guard = (what: string, fn: (() => void) | undefined) => {
      if (fn === undefined) return;
      try {
        fn();
      } catch (err) {
        const msg = `${what}: ${errText(err)}`;
        errors.push(`@${at()} ${msg}`);
        log("handler-error", msg);
      }
    };
    const tag = label === undefined ? "" : ` [${label}]`;
    const registration = source.addEventHandler({
      onAdd: (o, initial) => {
        notes.push({ type: "add", at: at(), key: keyOf(o), rv: o.metadata?.resourceVersion ?? "", initial });
        view.set(keyOf(o), o.metadata?.resourceVersion ?? "");
        log(
          "notification",
          `add ${keyOf(o)} rv=${o.metadata?.resourceVersion}${initial ? " (initial list)" : ""}${tag}`,
        );
        guard(`onAdd(${keyOf(o)})`, user?.onAdd && (() => user.onAdd!(o, initial)));
      },
      onUpdate: (old, o) => {
        const oldRv = old.metadata?.resourceVersion ?? "";
        notes.push({ type: "update", at: at(), key: keyOf(o), oldRv, rv: o.metadata?.resourceVersion ?? "" });
        view.set(keyOf(o), o.metadata?.resourceVersion ?? "");
        log("notification", `update ${keyOf(o)} rv=${oldRv}→${o.metadata?.resourceVersion}${tag}`);
        guard(`onUpdate(${keyOf(o)})`, user?.onUpdate && (() => user.onUpdate!(old, o)));
      },
      onDelete: (o) => {
        const tomb = o instanceof DeletedFinalStateUnknown;
        const obj = (tomb ? o.obj : o) as KubeObject | undefined;
        const key = tomb ? o.key : keyOf(o as KubeObject);
        notes.push({ type: "delete", at: at(), key, rv: obj?.metadata?.resourceVersion, tombstone: tomb });
        view.delete(key);
        log("notification", `delete ${key}${tomb ? " (DeletedFinalStateUnknown)" : ""}${tag}`);
        guard(`onDelete(${key})`, user?.onDelete && (() => user.onDelete!(o)));
      },
    });
    recorders.push({ label, source, registration, notes, view, observations: [], errors });
    return registration;
  };
  // Only observations with hasSynced true can break syncedHonest, and only by store keys the handler was never
  // given: record just those (the view is kept up to date notification by notification), so that a case of thousands
  // of objects and hundreds of steps stays linear.
  const observeRecorders = () => {
    for (const r of recorders) {
      if (!r.registration.hasSynced()) continue;
      const missing: string[] = [];
      const store = r.source.getStore();
      // Store keys are `namespace/name` (the view's keys) for namespaced objects: only a key the view lacks needs
      // the object's own key, so the common case allocates nothing per object.
      for (const sk of store.listKeys()) {
        if (r.view.has(sk)) continue;
        const o = store.getByKey(sk);
        const k = o === undefined ? sk : keyOf(o);
        if (!r.view.has(k)) missing.push(k);
      }
      if (missing.length > 0) r.observations.push({ at: at(), synced: true, storeKeys: missing, notifiedKeys: [] });
    }
  };
  const ac = new AbortController();
  let applying = false;
  let applied = 0;
  /** The virtual ms of each write a step made, in order. */
  const stepWrites: number[] = [];
  let subject: CoreSubject | undefined;
  let stopCalled = false;
  const callStop = (s: CoreSubject) => {
    stopCalled = true;
    ac.abort();
    return Promise.resolve().then(() => s.stop?.());
  };
  // What the simulator itself writes (garbage-collection deletes, namespace deletion, finalizer removal) is part of
  // the story: it is often the other half of a loop.
  for (const loop of [
    cluster.engine.garbageCollector,
    cluster.engine.namespaceController,
    cluster.engine.crdFinalizer,
  ]) {
    loop?.onAction((a) => log("simulator", `${a.controller}: ${a.text}`));
  }
  try {
    await prepareNamespaces(cluster, options.history?.namespaces);
    if (options.prepare !== undefined) {
      const prepare = options.prepare;
      await cluster.run(() => prepare(cluster), { maxMs: 24 * 3_600_000 });
    }
    const ctx: SubjectCase<V> = {
      cluster,
      useWatchList,
      variant,
      seed: input.seed,
      listerWatcher: listWatchFor(cluster.client, configmaps),
      signal: ac.signal,
      now: at,
      applyingStep: () => applying,
      stepsApplied: () => applied,
      historyWrites: (since) => {
        let n = 0;
        for (let i = stepWrites.length - 1; i >= 0 && stepWrites[i]! >= since; i--) n++;
        return n;
      },
      log,
      recordNotifications: (informer, handler, label) => record(informer, handler, label),
    };
    try {
      subject = await cluster.run(() => spec.subject(ctx));
    } catch (err) {
      log("phase", `${spec.name} did not start: ${errText(err)}`);
      return {
        reports: [
          { name: "subjectStarts", ok: false, violations: [`${spec.name} threw while starting: ${errText(err)}`] },
        ],
        timeline,
      };
    }
    const s = subject;
    const observe = () => {
      observeRecorders();
      s.observe?.();
    };
    log("phase", `${spec.name} started (${useWatchList ? "watch-list" : "list+watch"}, ${cluster.transport})`);
    // Between steps: let what the last step started finish — at the same instant with zero latency, in the few
    // virtual ms its requests and the watches they reopen take with the modelled latency (at most STEP_QUIET_MS).
    const quietMs = cluster.latency === "zero" ? 0 : STEP_QUIET_MS;
    const quiesce = async () => {
      await cluster.settle({ maxMs: quietMs, ignorePausedWatches: true }).catch(() => undefined);
      drainRequests();
      observe();
    };
    if (s.ready !== undefined) {
      const ready = s.ready.bind(s);
      await cluster
        .settle({ maxMs: 120_000, until: ready })
        .catch((err: unknown) => log("phase", `not ready: ${errText(err)}`));
      drainRequests();
    }
    s.afterStep?.(0);
    await quiesce();
    for (const [i, step] of steps.entries()) {
      applying = true;
      const before = cluster.requests.length;
      const outcome = await applyStep(cluster, step).finally(() => {
        applying = false;
        applied++;
      });
      for (let r = before; r < cluster.requests.length; r++) {
        if (WRITE_VERBS.has(cluster.requests[r]!.verb)) stepWrites.push(at());
      }
      log("step", `${describeStep(step)} → ${outcome}`);
      s.afterStep?.(i + 1);
      await quiesce();
    }
    cluster.faults.clearAll();
    log("phase", "faults cleared; waiting for convergence");
    s.settling?.();
    const viewOf = spec.serverView;
    const state = serverState(cluster);
    const truth = viewOf === undefined ? () => configMapVersions(cluster) : () => versions(viewOf(state));
    const stall =
      spec.givesUpItself === true
        ? undefined
        : noProgressWatch(
            cluster.clock,
            noProgressMs,
            (t) => Math.round(t - start),
            (text) => log("phase", text),
            () => ({
              current: cluster.engine.storage.currentRevision,
              compacted: cluster.engine.storage.compactedRevision,
            }),
          );
    // Progress: the expected view (not the storage's revision, which a compaction bumps too), what the subject's cache
    // holds, what its handlers were told, whether it synced.
    const subjectState = () =>
      `${s.hasSynced()}|${s.store === undefined ? "" : [...versions(s.store.list())].join(",")}|${recorders
        .map((r) => `${r.registration.hasSynced()}:${r.notes.length}`)
        .join(",")}`;
    await cluster
      .settle({
        maxMs: options.convergeWithinMs ?? 15 * 60_000,
        until: () => {
          observe();
          const t = truth();
          const converged =
            s.hasSynced() &&
            (s.store === undefined || same(versions(s.store.list()), t)) &&
            recorders.every((r) => r.registration.hasSynced() && same(r.view, t));
          return converged || (stall?.stalled(`${[...t].join(",")}|${subjectState()}`) ?? false);
        },
      })
      .catch((err: unknown) => log("phase", `did not converge: ${errText(err)}`))
      .finally(() => stall?.stop());
    drainRequests();
    const t = truth();
    const named = (name: string, r: Recorder) => (r.label === undefined ? name : `${name} (${r.label})`);
    const rename = (report: InvariantReport, r: Recorder): InvariantReport => ({
      ...report,
      name: named(report.name, r),
    });
    const truthKind = viewOf === undefined ? "server" : "serverView";
    const reports: InvariantReport[] =
      s.store === undefined ? [] : [storeConverges(versions(s.store.list()), t, truthKind)];
    for (const r of recorders) {
      reports.push(
        rename(handlerViewConverges(r.notes, t, truthKind), r),
        rename(notificationsOrdered(r.notes), r),
        rename(syncedHonest(r.observations), r),
        { name: named("handlerNeverThrows", r), ok: r.errors.length === 0, violations: r.errors.slice(0, 10) },
      );
    }
    const guarded = (name: string, fn: (() => InvariantReport[]) | undefined): InvariantReport[] => {
      try {
        return fn?.() ?? [];
      } catch (err) {
        return [{ name, ok: false, violations: [`the invariants threw: ${errText(err)}`] }];
      }
    };
    reports.push(
      ...guarded("subjectInvariants", s.invariants && (() => s.invariants!())),
      ...guarded("invariants", spec.invariants && (() => spec.invariants!(ctx))),
    );
    // Stopping may need virtual time (a slow handler sleeping on the clock): never await it without moving time.
    let stopped = false;
    let stopError: string | undefined;
    void callStop(s).then(
      () => {
        stopped = true;
      },
      (err: unknown) => {
        stopped = true;
        stopError = errText(err);
      },
    );
    reports.push(
      ...(await stopCase(cluster, {
        what: spec.stopWhat,
        stopped: () => stopped,
        withinMs: spec.stopWithinMs ?? 60_000,
        ...(spec.stopClosesWatches !== false && { alsoUntil: () => cluster.server.stats.openWatches === 0 }),
      })),
    );
    if (stopError !== undefined) {
      reports.push({ name: "stops", ok: false, violations: [`${spec.stopWhat} rejected: ${stopError}`] });
    }
    if (allRequests) drainRequests();
    return { reports, timeline };
  } finally {
    ac.abort();
    // A subject that did not stop is reported above; awaiting it here could hang on a clock nobody advances.
    if (subject !== undefined && !stopCalled) void callStop(subject).catch(() => undefined);
    await cluster.close();
  }
}

/** How a failure names its case: a generated one by its replay token, a hand-written one by its seed alone. */
export type CaseName = number | { readonly token: string; readonly caseSeed: number; readonly seed: number };

/** Renders a failed case of a subject runner: how to replay it, story, broken invariants, timeline. */
export function renderSubjectFailure<V>(
  spec: SubjectSpec<V>,
  name: CaseName,
  input: { readonly useWatchList: boolean; readonly steps: readonly SimStep[]; readonly variant: V },
  outcome: CaseOutcome,
): string {
  const { head, tail } = spec.story(input.useWatchList, input.variant, input.steps);
  return renderFailure(
    spec.checker,
    name,
    [head, ...input.steps.map((s) => `    - ${describeStep(s)}`), ...tail],
    outcome.reports,
    outcome.timeline,
  );
}

/** The generated inputs of one case, in the order the property's tuple draws them. */
type CaseTuple<V> = [useWatchList: boolean, steps: SimStep[], caseSeed: number, variant: V];

/** The arbitrary of a runner's cases: watch-list or not, a history, the case's seed, a variant. */
function caseArb<V>(options: PropertyOptions, variantArb: fc.Arbitrary<V>): fc.Arbitrary<CaseTuple<V>> {
  return fc.tuple(fc.boolean(), historyArb(options.history), fc.integer({ min: 1, max: 1_000_000 }), variantArb);
}

/** The fast-check parameters the kit sets itself; {@link PropertyOptions.fastCheck} cannot override them. */
type KitParameters = "seed" | "numRuns" | "path" | "endOnFailure" | "interruptAfterTimeLimit";

/** More fast-check parameters for a runner ({@link PropertyOptions.fastCheck}). */
export type FastCheckParameters = Omit<fc.Parameters<unknown>, KitParameters | "reporter" | "asyncReporter">;

/** The property's name in its replay token: `options.property`, or the runner's name. */
function propertyName(spec: { readonly checker: string }, options: PropertyOptions): string {
  const name = options.property ?? spec.checker;
  checkPropertyName(name);
  return name;
}

/**
 * Regenerates the case a replay token names (the same arbitrary, seed and path; nothing runs but generation). Throws
 * naming the token when it names no case of this property's arbitrary.
 */
export function caseOfToken<V>(
  spec: { readonly checker: string },
  options: PropertyOptions,
  variantArb: fc.Arbitrary<V>,
  token: string,
): { readonly useWatchList: boolean; readonly steps: SimStep[]; readonly seed: number; readonly variant: V } {
  const t = parseReplayToken(token);
  const property = propertyName(spec, options);
  if (t.property !== property) {
    throw new Error(`replay token ${JSON.stringify(token)} names property ${t.property}, not ${property}`);
  }
  let found: CaseTuple<V> | undefined;
  fc.check(
    fc.property(caseArb(options, variantArb), (c) => {
      found ??= c;
      return false;
    }),
    { seed: t.seed, path: t.path, endOnFailure: true, numRuns: 1 },
  );
  if (found === undefined) throw new Error(`replay token ${JSON.stringify(token)} names no case of ${property}`);
  const [useWatchList, steps, seed, variant] = found;
  return { useWatchList, steps, seed, variant };
}

/**
 * Generates cases (watch-list or not, a history, a case seed, a variant), runs each through the subject core and, on
 * failure, rejects with the shrunk case's story (re-running it to record its timeline when the last failing run was
 * another). `FC_REPLAY=<token>` naming this property runs just that case; `timeLimitMs` stops generating (and
 * shrinking) once the budget is spent, reporting the smallest counterexample found so far.
 */
export async function checkSubjectWith<V>(
  spec: SubjectSpec<V>,
  options: PropertyOptions,
  variantArb: fc.Arbitrary<V>,
  defaultRuns: number,
): Promise<CheckResult> {
  const property = propertyName(spec, options);
  const replay = replayFromEnv(property);
  const seed = replay?.seed ?? seedFromEnv(options.seed ?? 42);
  const numRuns = options.numRuns ?? defaultRuns;
  if (options.timeLimitMs !== undefined && !(Number.isFinite(options.timeLimitMs) && options.timeLimitMs > 0)) {
    throw new RangeError(`${spec.checker}: timeLimitMs must be a number > 0, got ${options.timeLimitMs}`);
  }
  let caseNo = 0;
  /** The generated case (counting from 1) that failed first: how many cases it took to find the bug. */
  let firstFailureAt: number | undefined;
  let lastFailure: { readonly args: CaseTuple<V>; readonly outcome: CaseOutcome } | undefined;
  const prop = fc.asyncProperty(caseArb(options, variantArb), async (args) => {
    caseNo++;
    const [useWatchList, steps, caseSeed, variant] = args;
    const outcome = await runSubjectCaseWith(spec, options, { useWatchList, steps, seed: caseSeed, variant });
    const ok = outcome.reports.every((r) => r.ok);
    if (!ok) lastFailure = { args, outcome };
    if (!ok) firstFailureAt ??= caseNo;
    return ok;
  });
  const details = await fc.check(prop, {
    ...(options.fastCheck as fc.Parameters<[CaseTuple<V>]> | undefined),
    numRuns,
    seed,
    ...(replay !== undefined && { path: replay.path, endOnFailure: true }),
    ...(options.timeLimitMs !== undefined && { interruptAfterTimeLimit: options.timeLimitMs }),
  });
  const counterexample = details.counterexample;
  // An interrupt before any failure is not one (fast-check reports it as failed with no counterexample).
  if (!details.failed || (counterexample === null && details.interrupted)) {
    return { numRuns: details.numRuns, seed, ...(details.interrupted && { interrupted: true }) };
  }
  if (counterexample === null) {
    throw new Error(`${spec.checker}: seed ${seed} failed without a counterexample: ${String(details.errorInstance)}`);
  }
  const [args] = counterexample;
  const [useWatchList, steps, caseSeed, variant] = args;
  const input = { useWatchList, steps, seed: caseSeed, variant };
  // The last failing run is normally the counterexample itself; otherwise re-run it (a pure function of its inputs).
  const outcome =
    lastFailure !== undefined && lastFailure.args === args
      ? lastFailure.outcome
      : await runSubjectCaseWith(spec, options, input);
  const token = formatReplayToken({ property, seed, path: details.counterexamplePath ?? "" });
  const how =
    replay !== undefined
      ? "replayed from FC_REPLAY: this case alone, no search or shrinking"
      : `found at case ${firstFailureAt ?? caseNo}; ${caseNo} cases run, ${details.numShrinks} shrinks${details.interrupted ? `, interrupted by timeLimitMs (${options.timeLimitMs} ms): the smallest counterexample found so far` : ""}`;
  const text = `${renderSubjectFailure(spec, { token, caseSeed, seed }, input, outcome)}\n  (${how})`;
  options.log?.(text);
  throw new Error(text);
}

function subjectSpec<V>(options: CheckSubjectOptions<V>): SubjectSpec<V> {
  const name = options.name ?? "subject";
  const describe = options.describeVariant ?? ((v: V) => JSON.stringify(v));
  return {
    checker: "checkSubject",
    name,
    stopWhat: `${name}.stop()`,
    subject: options.subject,
    ...(options.invariants !== undefined && { invariants: options.invariants }),
    ...(options.serverView !== undefined && { serverView: options.serverView }),
    story: (useWatchList, variant, steps) => ({
      head: `  ${name}: ${useWatchList ? "watch-list" : "list+watch"}${options.variant === undefined ? "" : `, ${describe(variant)}`}; history (${steps.length} steps, shrunk):`,
      tail: [],
    }),
  };
}

/**
 * Runs one case of {@link checkSubject} with a given history (no generation, no shrinking) and returns the invariant
 * reports and the timeline; never rejects for a violation. Pins a found counterexample as a regression test.
 */
export function runSubjectCase<V = undefined>(
  options: CheckSubjectOptions<V>,
  input: SubjectCaseInput<V> | string,
): Promise<CaseOutcome> {
  return runCaseWith(subjectSpec(options), options, options.variant ?? fc.constant(undefined as V), input);
}

/**
 * Property-tests any subject that keeps a cache of the cluster's ConfigMaps — a bare `Reflector`, a `watcher()` stream
 * piped into `reflect(store)`, an informer of your own, a layer over a lister-watcher — against the simulated cluster,
 * with the same generated histories, faults, settle, timeline and `FC_SEED` replay as `checkInformer`. Per case it
 * starts the subject (`subject(c)`, on `c.listerWatcher` or `c.cluster.client`), applies the history, ends the
 * faults, lets the system settle until the subject synced and its store equals the server's (15 virtual minutes at
 * most), and checks `storeConverges`, the invariants of every registration recorded with `c.recordNotifications`
 * (`handlerViewConverges`, `notificationsOrdered`, `syncedHonest`, `handlerNeverThrows`), the subject's own and your
 * `invariants`, then stops it (`stops`, `noLeaks`). Resolves with `{ numRuns, seed }` when every case passed;
 * otherwise rejects with an `Error` whose message is the shrunk case (its variant included) as a timeline, its seed
 * and `FC_SEED=<seed>` to replay it. Runner-agnostic: it only returns a promise.
 */
export async function checkSubject<V = undefined>(options: CheckSubjectOptions<V>): Promise<CheckResult> {
  if (typeof options?.subject !== "function") {
    throw new TypeError("checkSubject: options.subject must be a function (c) => SubjectUnderTest");
  }
  return checkSubjectWith(subjectSpec(options), options, options.variant ?? fc.constant(undefined as V), 100);
}
