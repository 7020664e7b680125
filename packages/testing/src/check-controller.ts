import type { KubeObject } from "@informer-ts/apimachinery";
import { DeletedFinalStateUnknown, type SharedIndexInformer, silentLogger } from "@informer-ts/cache";
import { listWatchFor, type ResourceDescriptor } from "@informer-ts/client";
import { seededRand } from "@informer-ts/clock";
import {
  type Controller,
  ControllerBuilder,
  type ControllerContext,
  Manager,
  type Reconciler,
  requestKey,
} from "@informer-ts/controller";
import { type MetricsProvider, noopMetrics } from "@informer-ts/instrumentation";
import type { SimResource } from "@informer-ts/sim-apiserver";
import fc from "fast-check";
import type { SimStep } from "./arbitraries.js";
import {
  type CaseOutcome,
  type CheckResult,
  type CoreSubject,
  checkSubjectWith,
  type PropertyOptions,
  renderSubjectFailure,
  runCaseWith,
  type SubjectSpec,
  type TimelineEntry,
} from "./check-subject.js";
import type { InvariantReport } from "./invariants.js";
import { type ServerState, serverState } from "./server-state.js";
import type { SimCluster } from "./sim-cluster.js";

const errText = (err: unknown) => (err instanceof Error ? err.message : String(err));

/**
 * What a controller must make true of the server's state once it is quiet: `true`/`false`, or the violations as
 * readable sentences (an empty array holds). It reads storage directly, so it sees what the server stores, not what
 * any cache believes.
 */
export type ConvergencePredicate = (state: ServerState) => boolean | readonly string[];

/** One reconcile the kit observed: which controller, which key, and when it started and ended. */
export interface ReconcileRecord {
  readonly controller: string;
  readonly key: string;
  /** Virtual ms since the case started. */
  readonly startedAt: number;
  /** Order of the start among every start and end of the case (ties in virtual time are still ordered). */
  readonly startSeq: number;
  /** Order of the end; undefined while the reconcile has not settled. */
  endSeq?: number;
  /** `ok`, `requeue`, `requeueAfter <ms>` or `error: <message>`; undefined while running. */
  outcome?: string;
}

/**
 * `controllerConverges(predicate)`: the predicate holds over the server's state at quiescence, and no key was
 * reconciled by one controller while an earlier reconcile of the same key by the same controller had not settled.
 * A predicate that throws is a violation naming the error (never rethrown).
 */
export function controllerConverges(
  predicate: ConvergencePredicate,
  state: ServerState,
  reconciles: readonly ReconcileRecord[],
): InvariantReport {
  const out: string[] = [];
  try {
    const verdict = predicate(state);
    if (verdict === false) out.push("the convergence predicate does not hold on the server's state");
    else if (Array.isArray(verdict)) out.push(...(verdict as readonly string[]));
  } catch (err) {
    out.push(`the convergence predicate threw: ${err instanceof Error ? err.message : String(err)}`);
  }
  const open = new Map<string, ReconcileRecord[]>();
  const byStart = [...reconciles].sort((a, b) => a.startSeq - b.startSeq);
  for (const r of byStart) {
    const id = `${r.controller}\u0000${r.key}`;
    const running = (open.get(id) ?? []).filter((p) => p.endSeq === undefined || p.endSeq > r.startSeq);
    for (const p of running) {
      out.push(
        `${r.controller} reconciled ${r.key} concurrently: a reconcile started @${r.startedAt} while the one started @${p.startedAt} was still running`,
      );
    }
    running.push(r);
    open.set(id, running);
  }
  const shown = out.length > 10 ? [...out.slice(0, 10), `… and ${out.length - 10} more`] : out;
  return { name: "controllerConverges", ok: out.length === 0, violations: shown };
}

/** What {@link CheckControllerOptions.setup} gets for one generated case. */
export interface ControllerCase<V = undefined> {
  readonly cluster: SimCluster;
  /** The case's manager: informers on the cluster's client, the cluster's clock, no metrics. The kit runs it. */
  readonly manager: Manager;
  /** Whether this case's reflectors use watch-list (generated). */
  readonly useWatchList: boolean;
  /** This case's generated variant (see {@link CheckControllerOptions.variant}); `undefined` without one. */
  readonly variant: V;
  /**
   * `newControllerManagedBy(manager)`, except that the kit observes the reconciler `complete` gets: each reconcile is
   * in the timeline, `settle()` waits for it, and concurrent reconciles of one key are caught. Build every controller
   * under test with it (a finalizer hook added with `finalize` is not observed).
   */
  builder(): ControllerBuilder;
  /** Wraps a reconciler so the kit observes it, for a `Controller` you construct yourself (and `manager.add`). */
  observe(reconciler: Reconciler, controller: string): Reconciler;
  /** Virtual ms since the case started (the timeline's clock): what your invariants compare times with. */
  now(): number;
  /** Adds a line to the case's timeline (printed with a failure): what your controller or invariant saw. */
  log(kind: TimelineEntry["kind"], text: string): void;
}

/** Options of {@link checkController} (besides the runners' shared {@link PropertyOptions}). */
export interface CheckControllerOptions<V = undefined> extends PropertyOptions {
  /** Builds the controllers under test on `c.builder()` (or `c.manager`). Runs once per case, before the manager. */
  readonly setup: (c: ControllerCase<V>) => void | Promise<void>;
  /** What must hold of the server's state once the faults ended and everything settled. */
  readonly converges: ConvergencePredicate;
  /** Generated cases (default 50). */
  readonly numRuns?: number;
  /** Resources served besides the built-in ones (your custom resources). */
  readonly resources?: readonly SimResource[];
  /** More invariants, checked at quiescence (an exception is an `invariants` violation). */
  readonly invariants?: (c: ControllerCase<V>, reconciles: readonly ReconcileRecord[]) => InvariantReport[];
  /**
   * Generates a variant per case (how your controllers are configured: worker counts, a chaos rate…), shrunk and
   * printed with the history; `setup` reads it as `c.variant`. Default: none.
   */
  readonly variant?: fc.Arbitrary<V>;
  /** Prints a variant in a failure's story (default `JSON.stringify`). */
  readonly describeVariant?: (variant: V) => string;
  /**
   * Makes each case's manager's metrics (called once per case; default none: `noopMetrics`): return an
   * `InMemoryMetrics` to judge them in `invariants` through `c.manager.metrics`.
   */
  readonly metrics?: () => MetricsProvider;
  /**
   * When reconciles of one key come too fast: more than `reconciles` (default 50) starts of one controller's key
   * within any `windowMs` (default 1 000) of virtual time is a `reconcileStorm` — a controller re-triggering itself (each
   * write enqueues the next reconcile) or churning against another writer (re-creating what the garbage collector
   * deletes). Reconciles that start while a step of the history is being applied are not counted (the history's own
   * writes drive them: a step may update one key 120 times) but against an allowance of four times `reconciles` per
   * step and key; and the threshold rises by every write the history made within the window and the minute before
   * it (those events may arrive late and all at once, through a slow or stalled watch). From then on reconcilers are no longer called, so the case ends and its story stays short. The
   * default is above what the generated histories cause by themselves between steps (each step a write of one key,
   * each reconcile writing a child that triggers one more: about 2 per step, 25 steps) and far below a loop (a
   * round trip of a few virtual ms per reconcile under the modelled latency: 150–300 per second; zero latency: all at
   * one instant).
   */
  readonly stormThreshold?: { readonly reconciles?: number; readonly windowMs?: number };
  /**
   * `noKeyStuck` (on by default): at quiescence no key's last reconcile failed (an error, a `TerminalError`
   * included) and no key waits to retry (`requeue: true`); the quiet phase waits for retries first (15 virtual
   * minutes at most). `false` turns it off; `{ allow: [...] }` names keys allowed to end failed — `namespace/name`
   * (any controller) or `controller namespace/name`.
   */
  readonly noKeyStuck?: boolean | { readonly allow: readonly string[] };
  /**
   * Most reconciles one case may run in all (default 5 000): a hard stop beyond the rate of {@link stormThreshold}
   * (it also fails with `reconcileStorm`).
   */
  readonly maxReconciles?: number;
}

/** One case of {@link checkController}, for replaying a history by hand with {@link runControllerCase}. */
export interface ControllerCaseInput<V = undefined> {
  readonly useWatchList: boolean;
  readonly steps: readonly SimStep[];
  /** Seed of the simulator's and the manager's randomness. */
  readonly seed: number;
  /** The variant (omit it when the options have none). */
  readonly variant?: V;
}

/** The outcome of one controller case: the reports, the timeline and every observed reconcile. */
export interface ControllerCaseOutcome extends CaseOutcome {
  readonly reconciles: readonly ReconcileRecord[];
}

/**
 * How far back the history's own writes raise the storm threshold: their events may reach the controller late (a
 * slow or stalled watch, a relist after a fault), in a burst of reconciles that is no loop.
 */
const HISTORY_ECHO_MS = 60_000;

/** The `noKeyStuck` report from the stuck keys' sentences (ten at most, then a count). */
function stuckReport(stuck: readonly string[]): InvariantReport {
  const shown = stuck.length > 10 ? [...stuck.slice(0, 10), `… and ${stuck.length - 10} more`] : [...stuck];
  return { name: "noKeyStuck", ok: stuck.length === 0, violations: shown };
}

/**
 * The case's manager: every informer it hands out (to the builder's for/owns/watches and to `setup`) gets a handler
 * that puts its notifications in the timeline, so the story shows what each controller's caches saw.
 */
class ObservedManager extends Manager {
  private readonly recorded = new WeakSet<object>();

  constructor(
    private readonly c: { log(kind: "notification", text: string): void },
    options: ConstructorParameters<typeof Manager>[0],
  ) {
    super(options);
  }

  override informerFor<T = KubeObject>(resource: ResourceDescriptor<T>): SharedIndexInformer<T> {
    const informer = super.informerFor(resource);
    if (this.recorded !== undefined && !this.recorded.has(informer)) {
      this.recorded.add(informer);
      const what = resource.resource;
      const key = (o: unknown) => {
        const m = (o as KubeObject).metadata;
        return `${m?.namespace === undefined ? "" : `${m.namespace}/`}${m?.name ?? ""}`;
      };
      const rv = (o: unknown) => (o as KubeObject).metadata?.resourceVersion ?? "";
      informer.addEventHandler({
        onAdd: (o, initial) =>
          this.c.log("notification", `${what} add ${key(o)} rv=${rv(o)}${initial ? " (initial list)" : ""}`),
        onUpdate: (old, o) => this.c.log("notification", `${what} update ${key(o)} rv=${rv(old)}→${rv(o)}`),
        onDelete: (o) => {
          const tomb = o instanceof DeletedFinalStateUnknown;
          this.c.log("notification", `${what} delete ${tomb ? `${o.key} (DeletedFinalStateUnknown)` : key(o)}`);
        },
      });
    }
    return informer;
  }
}

class ObservedBuilder extends ControllerBuilder {
  constructor(
    context: ControllerContext,
    private readonly wrap: (r: Reconciler, name: () => string) => Reconciler,
    private readonly built: (c: Controller) => void,
  ) {
    super(context);
  }

  override complete(reconciler: Reconciler): Controller {
    let name = "controller";
    const c = super.complete(this.wrap(reconciler, () => name));
    name = c.name;
    this.built(c);
    return c;
  }
}

const describeResult = (r: unknown): string => {
  if (r === undefined || r === null || typeof r !== "object") return "ok";
  const o = r as { requeue?: boolean; requeueAfter?: number };
  if (o.requeueAfter !== undefined && o.requeueAfter > 0) return `requeueAfter ${o.requeueAfter}`;
  return o.requeue === true ? "requeue" : "ok";
};

/** The controller runner on the subject core: the manager is the subject; it has no store, only a predicate. */
function controllerSpec<V>(options: CheckControllerOptions<V>, out: { reconciles: ReconcileRecord[] }): SubjectSpec<V> {
  const describe = options.describeVariant ?? ((v: V) => JSON.stringify(v));
  const maxReconciles = options.maxReconciles ?? 5_000;
  const stormReconciles = options.stormThreshold?.reconciles ?? 50;
  const stormWindowMs = options.stormThreshold?.windowMs ?? 1000;
  const noProgressMs = options.noProgressWithinMs ?? 120_000;
  for (const [name, v] of [
    ["maxReconciles", maxReconciles],
    ["noProgressWithinMs", noProgressMs],
    ["stormThreshold.reconciles", stormReconciles],
    ["stormThreshold.windowMs", stormWindowMs],
  ] as const) {
    if (!(Number.isFinite(v) && v > 0)) throw new RangeError(`checkController: ${name} must be a number > 0, got ${v}`);
  }
  return {
    checker: "checkController",
    givesUpItself: true,
    name: "manager",
    stopWhat: "manager.run",
    requests: "all",
    stopWithinMs: 120_000,
    stopClosesWatches: false,
    ...(options.resources !== undefined && { resources: options.resources }),
    story: (useWatchList, variant, steps) => ({
      head: `  reflectors: ${useWatchList ? "watch-list" : "list+watch"}${options.variant === undefined ? "" : `, ${describe(variant)}`}; history (${steps.length} steps, shrunk):`,
      tail: [],
    }),
    subject: async (c): Promise<CoreSubject> => {
      const { cluster, useWatchList } = c;
      const reconciles: ReconcileRecord[] = [];
      out.reconciles = reconciles;
      const controllers: Controller[] = [];
      const running = new Map<string, number>();
      const runErrors: string[] = [];
      let seq = 0;
      let observed = 0;
      let storm: string | undefined;
      /** Per controller and key: the start times of its reconciles within the last storm window. */
      const recent = new Map<string, number[]>();
      /** Per controller and key: the outcome of its last settled reconcile, and when that reconcile started. */
      const last = new Map<
        string,
        { readonly controller: string; readonly key: string; readonly outcome: string; readonly startedAt: number }
      >();
      /** Set when a key was reconciled concurrently: the case already failed. */
      let concurrentSeen = false;
      /** Per controller and key: reconciles started while the current step was applied. */
      const duringStep = new Map<string, number>();
      let stepOf = -1;
      const observe = (reconciler: Reconciler, controller: () => string): Reconciler => {
        observed++;
        return (request, ctx) => {
          const key = requestKey(request);
          const name = controller();
          if (storm !== undefined) return undefined;
          const id = `${name}\u0000${key}`;
          const now = c.now();
          const starts = (recent.get(id) ?? []).filter((t) => t > now - stormWindowMs);
          // While a step is applied its writes drive the reconciles (120 updates of one key, say): they count against
          // a per-step allowance of four times the threshold instead (a loop at one instant still trips it).
          const step = c.stepsApplied();
          if (step !== stepOf) {
            stepOf = step;
            duringStep.clear();
          }
          const inStep = c.applyingStep() ? (duringStep.get(id) ?? 0) + 1 : 0;
          if (c.applyingStep()) duringStep.set(id, inStep);
          else starts.push(now);
          recent.set(id, starts);
          if (inStep > 4 * stormReconciles) {
            storm = `${name} reconciled ${key} ${inStep} times while one step of the history was applied (the allowance is ${4 * stormReconciles}): it keeps re-triggering itself or churns against another writer`;
          } else if (starts.length > stormReconciles + c.historyWrites(now - stormWindowMs - HISTORY_ECHO_MS)) {
            const writes = c.historyWrites(now - stormWindowMs - HISTORY_ECHO_MS);
            const allowed =
              writes === 0 ? `${stormReconciles}` : `${stormReconciles} + ${writes} recent writes of the history`;
            storm = `${name} reconciled ${key} ${starts.length} times within ${stormWindowMs} virtual ms (from @${starts[0]} to @${now}; the threshold is ${allowed}): it keeps re-triggering itself or churns against another writer`;
          } else if (reconciles.length >= maxReconciles) {
            storm = `more than ${maxReconciles} reconciles in one case (maxReconciles): the controllers never go quiet`;
          }
          if (storm !== undefined) {
            c.log("phase", `reconcile storm: ${storm}; reconcilers are no longer called`);
            return undefined;
          }
          const rec: ReconcileRecord = { controller: name, key, startedAt: now, startSeq: seq++ };
          reconciles.push(rec);
          const concurrent = running.get(id) ?? 0;
          running.set(id, concurrent + 1);
          if (concurrent > 0) {
            concurrentSeen = true;
            c.log("reconcile", `${name} ${key} started while another reconcile of it runs`);
          }
          const done = (outcome: string) => {
            rec.endSeq = seq++;
            rec.outcome = outcome;
            last.set(id, { controller: name, key, outcome, startedAt: rec.startedAt });
            const left = (running.get(id) ?? 1) - 1;
            if (left === 0) running.delete(id);
            else running.set(id, left);
            const since = rec.startedAt === c.now() ? "" : ` (started @${rec.startedAt})`;
            c.log("reconcile", `${name} ${key} → ${outcome}${since}`);
          };
          let result: ReturnType<Reconciler>;
          try {
            result = reconciler(request, ctx);
          } catch (err) {
            done(`error: ${errText(err)}`);
            throw err;
          }
          const settled = Promise.resolve(result).then(
            (r) => {
              done(describeResult(r));
              return r;
            },
            (err: unknown) => {
              done(`error: ${errText(err)}`);
              throw err;
            },
          );
          // settle() waits for running reconciles; the controller handles the rejection itself.
          void cluster.track(`reconcile ${name} ${key}`, settled).catch(() => undefined);
          return settled;
        };
      };
      const manager = new ObservedManager(c, {
        listerWatcherFor: (r, { namespace }) =>
          listWatchFor(cluster.client, r, namespace === undefined ? {} : { namespace }),
        client: cluster.client,
        clock: cluster.clock,
        rand: seededRand(c.seed),
        metrics: options.metrics?.() ?? noopMetrics,
        quiet: true, // the kit reports reconcile errors itself; the runtime's logs would flood a property run
        informerOptions: { logger: silentLogger, reflector: { useWatchList, logger: silentLogger } },
      });
      const ctx: ControllerCase<V> = {
        cluster,
        manager,
        useWatchList,
        variant: c.variant,
        builder: () =>
          new ObservedBuilder(manager, observe, (built) => {
            controllers.push(built);
          }),
        observe: (r, name) => observe(r, () => name),
        now: c.now,
        log: c.log,
      };
      await options.setup(ctx);
      const _managerEvents = manager.events$.subscribe((e) => {
        if (e.type === "error") c.log("phase", `manager error from ${e.source}: ${errText(e.error)}`);
        else if (e.type === "controllersStarted") c.log("phase", `controllers started: ${e.names.join(", ")}`);
      });
      let stopped = false;
      const run = manager.run(c.signal).then(
        () => {
          stopped = true;
        },
        (err: unknown) => {
          stopped = true;
          const msg = `manager.run rejected: ${errText(err)}`;
          runErrors.push(msg);
          c.log("phase", msg);
        },
      );
      const state = serverState(cluster);
      const idle = () =>
        controllers.every((ctl) => {
          const st = ctl.status();
          return st.phase === "running" && st.queueLength === 0 && st.inFlight.length === 0;
        });
      const holds = () => {
        try {
          const v = options.converges(state);
          return v === true || (Array.isArray(v) && v.length === 0);
        } catch {
          return false;
        }
      };
      const ready = () => stopped || manager.notReadyReason() === undefined;
      const stuckCheck = options.noKeyStuck ?? true;
      const allowed = new Set(typeof stuckCheck === "object" ? stuckCheck.allow : []);
      const stuck = (): string[] => {
        if (stuckCheck === false) return [];
        const out: string[] = [];
        for (const l of last.values()) {
          if (!(l.outcome.startsWith("error") || l.outcome === "requeue")) continue;
          if (allowed.has(l.key) || allowed.has(`${l.controller} ${l.key}`)) continue;
          out.push(
            l.outcome === "requeue"
              ? `${l.controller} ${l.key} still waits to retry (its last reconcile asked to requeue)`
              : `${l.controller} ${l.key}: its last reconcile failed (${l.outcome}) and it is retrying, not done`,
          );
        }
        return out;
      };
      // The quiet phase's progress: the storage's resourceVersion moves with every write (the controllers', the
      // simulator's). A timer wakes the settle loop when the no-progress window ends, so the give-up happens on time
      // even when nothing else is scheduled before the next watch renewal.
      let settlingFrom: number | undefined;
      let lastRevision = "";
      let lastProgressAt = 0;
      let gaveUp = false;
      let wake: { stop(): void } | undefined;
      const noteProgress = () => {
        if (state.resourceVersion === lastRevision) return;
        lastRevision = state.resourceVersion;
        lastProgressAt = c.now();
      };
      // Due when the window ends; past it (a reconcile still running, a key not retried yet) every eighth of it.
      const armWake = () => {
        wake?.stop();
        const due = lastProgressAt + noProgressMs - c.now();
        wake = cluster.clock.afterFunc(due > 0 ? due : noProgressMs / 8, () => {
          wake = undefined;
          noteProgress();
          if (!gaveUp) armWake();
        });
      };
      const cannotConverge = (): boolean => {
        if (settlingFrom === undefined || gaveUp) return gaveUp;
        const now = c.now();
        noteProgress();
        let why: string | undefined;
        if (concurrentSeen) why = "a key was reconciled concurrently";
        else if (now - lastProgressAt >= noProgressMs && running.size === 0) {
          const retried = [...last.values()].every((l) => l.outcome === "ok" || l.startedAt >= settlingFrom!);
          if (retried) {
            why = `the server's state has not changed since @${lastProgressAt} (noProgressWithinMs ${noProgressMs}), no reconcile is running and every failing key was retried after the faults ended`;
          }
        }
        if (why === undefined) return false;
        gaveUp = true;
        wake?.stop();
        wake = undefined;
        c.log("phase", `the case cannot converge: ${why}; the quiet phase ends`);
        return true;
      };
      const userInvariants = (): InvariantReport[] => {
        try {
          return options.invariants?.(ctx, reconciles) ?? [];
        } catch (err) {
          return [{ name: "invariants", ok: false, violations: [`the invariants threw: ${errText(err)}`] }];
        }
      };
      return {
        ready,
        // The quiet phase waits until the manager is ready, every controller idle and the predicate holds.
        // A storm stopped the reconcilers: the case cannot converge any more, so the quiet phase ends at once (no
        // 15 virtual minutes of watch renewals in the story).
        // Nor does it wait once the case cannot converge (no progress, see noProgressWithinMs).
        hasSynced: () =>
          stopped ||
          storm !== undefined ||
          (manager.notReadyReason() === undefined && idle() && holds() && stuck().length === 0) ||
          cannotConverge(),
        settling: () => {
          settlingFrom = c.now();
          lastRevision = state.resourceVersion;
          lastProgressAt = settlingFrom;
          armWake();
        },
        invariants: () => [
          controllerConverges(options.converges, state, reconciles),
          { name: "managerRuns", ok: runErrors.length === 0, violations: runErrors },
          { name: "reconcileStorm", ok: storm === undefined, violations: storm === undefined ? [] : [storm] },
          ...(stuckCheck === false ? [] : [stuckReport(stuck())]),
          ...userInvariants(),
          ...(observed === 0
            ? [
                {
                  name: "reconcilersObserved",
                  ok: false,
                  violations: [
                    "setup observed no reconciler: build the controllers under test with c.builder() (or c.observe)",
                  ],
                },
              ]
            : []),
        ],
        stop: () => {
          wake?.stop();
          wake = undefined;
          return run;
        },
      };
    },
  };
}

/**
 * Runs one case of {@link checkController} — a given history, or the replay token a failure printed (`FC_REPLAY=…`:
 * that case regenerated exactly, its `story` in the outcome) — with no search and no shrinking, and returns the
 * reports, the timeline and the observed reconciles; never rejects for a violation (an exception thrown by `setup`
 * is a `subjectStarts` violation). A token of another property, or that is malformed, rejects naming it.
 */
export async function runControllerCase<V = undefined>(
  options: CheckControllerOptions<V>,
  input: ControllerCaseInput<V> | string,
): Promise<ControllerCaseOutcome> {
  const out: { reconciles: ReconcileRecord[] } = { reconciles: [] };
  const variant = options.variant ?? fc.constant(undefined as V);
  const outcome = await runCaseWith(controllerSpec(options, out), options, variant, input);
  return { ...outcome, reconciles: out.reconciles };
}

/** Renders a controller failure: seed, replay command, history, broken invariants and the timeline. */
export function formatControllerFailure<V = undefined>(
  seed: number,
  input: ControllerCaseInput<V>,
  outcome: CaseOutcome,
  options?: Pick<CheckControllerOptions<V>, "variant" | "describeVariant">,
): string {
  const spec = controllerSpec({ ...options } as CheckControllerOptions<V>, { reconciles: [] });
  return renderSubjectFailure(spec, seed, { ...input, variant: input.variant as V }, outcome);
}

/**
 * Property-tests controllers against the simulated cluster: fast-check generates histories of ConfigMap writes, server
 * faults and time steps; each case builds your controllers (`setup`, on the case's `Manager`), runs the manager
 * through one history, ends the faults, lets everything settle until the controllers are idle and `converges` holds
 * (15 virtual minutes at most; earlier once the case cannot converge, see
 * {@link CheckControllerOptions.noProgressWithinMs}), and checks `controllerConverges` (the predicate holds; no key reconciled
 * concurrently), `managerRuns` (run never rejected), `reconcileStorm` (no key reconciled faster than
 * {@link CheckControllerOptions.stormThreshold}), `noKeyStuck` (no key's last reconcile failed, none waits to retry),
 * `noLeaks` after the manager stopped, and your own invariants.
 * Resolves when every case passed; otherwise rejects with an `Error` whose message is the shrunk case as a timeline
 * (steps, requests, reconciles and their outcomes), its seed and `FC_SEED=<seed>` to replay it. Runner-agnostic.
 */
export async function checkController<V = undefined>(options: CheckControllerOptions<V>): Promise<CheckResult> {
  if (typeof options?.setup !== "function") throw new TypeError("checkController: options.setup must be a function");
  if (typeof options.converges !== "function") {
    throw new TypeError("checkController: options.converges must be a function (state) => boolean | string[]");
  }
  const variant = options.variant ?? fc.constant(undefined as V);
  return checkSubjectWith(controllerSpec(options, { reconciles: [] }), options, variant, 50);
}
