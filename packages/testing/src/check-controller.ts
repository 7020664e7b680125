import { silentLogger } from "@informer-ts/cache";
import { listWatchFor } from "@informer-ts/client";
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
  runSubjectCaseWith,
  type SubjectSpec,
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
   * Most reconciles one case may run (default 5 000). A controller that keeps re-triggering itself (each write
   * enqueues another reconcile, without virtual time passing) would otherwise never let the case end: past the bound
   * its reconciles are no longer called and the case fails with `reconcileStorm`.
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
  return {
    checker: "checkController",
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
      let storm = false;
      const observe = (reconciler: Reconciler, controller: () => string): Reconciler => {
        observed++;
        return (request, ctx) => {
          const key = requestKey(request);
          const name = controller();
          if (reconciles.length >= maxReconciles) {
            if (!storm) {
              storm = true;
              c.log("phase", `reconcile storm: ${maxReconciles} reconciles; reconcilers are no longer called`);
            }
            return undefined;
          }
          const rec: ReconcileRecord = { controller: name, key, startedAt: c.now(), startSeq: seq++ };
          reconciles.push(rec);
          const id = `${name}\u0000${key}`;
          const concurrent = running.get(id) ?? 0;
          running.set(id, concurrent + 1);
          if (concurrent > 0) c.log("reconcile", `${name} ${key} started while another reconcile of it runs`);
          const done = (outcome: string) => {
            rec.endSeq = seq++;
            rec.outcome = outcome;
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
      const manager = new Manager({
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
        hasSynced: () => stopped || (manager.notReadyReason() === undefined && idle() && holds()),
        invariants: () => [
          controllerConverges(options.converges, state, reconciles),
          { name: "managerRuns", ok: runErrors.length === 0, violations: runErrors },
          {
            name: "reconcileStorm",
            ok: !storm,
            violations: storm
              ? [`more than ${maxReconciles} reconciles in one case: the controller keeps re-triggering itself`]
              : [],
          },
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
        stop: () => run,
      };
    },
  };
}

/**
 * Runs one case of {@link checkController} with a given history (no generation, no shrinking) and returns the
 * reports, the timeline and the observed reconciles; never rejects for a violation (an exception thrown by `setup`
 * is a `subjectStarts` violation).
 */
export async function runControllerCase<V = undefined>(
  options: CheckControllerOptions<V>,
  input: ControllerCaseInput<V>,
): Promise<ControllerCaseOutcome> {
  const out: { reconciles: ReconcileRecord[] } = { reconciles: [] };
  const outcome = await runSubjectCaseWith(controllerSpec(options, out), options, {
    ...input,
    variant: input.variant as V,
  });
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
 * (15 virtual minutes at most), and checks `controllerConverges` (the predicate holds; no key reconciled
 * concurrently), `managerRuns` (run never rejected), `noLeaks` after the manager stopped, and your own invariants.
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
