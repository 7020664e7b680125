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
import { noopMetrics } from "@informer-ts/instrumentation";
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
import type { CaseOutcome, CheckResult, TimelineEntry } from "./check-subject.js";
import { seedFromEnv } from "./internal/replay-seed.js";
import { stopCase } from "./internal/stop-case.js";
import { renderFailure } from "./internal/timeline.js";
import type { InvariantReport } from "./invariants.js";
import { type ServerState, serverState } from "./server-state.js";
import { createSimCluster, type SimCluster, type SimTransport } from "./sim-cluster.js";

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
export interface ControllerCase {
  readonly cluster: SimCluster;
  /** The case's manager: informers on the cluster's client, the cluster's clock, no metrics. The kit runs it. */
  readonly manager: Manager;
  /** Whether this case's reflectors use watch-list (generated). */
  readonly useWatchList: boolean;
  /**
   * `newControllerManagedBy(manager)`, except that the kit observes the reconciler `complete` gets: each reconcile is
   * in the timeline, `settle()` waits for it, and concurrent reconciles of one key are caught. Build every controller
   * under test with it (a finalizer hook added with `finalize` is not observed).
   */
  builder(): ControllerBuilder;
  /** Wraps a reconciler so the kit observes it, for a `Controller` you construct yourself (and `manager.add`). */
  observe(reconciler: Reconciler, controller: string): Reconciler;
}

/** Options of {@link checkController}. */
export interface CheckControllerOptions {
  /** Builds the controllers under test on `c.builder()` (or `c.manager`). Runs once per case, before the manager. */
  readonly setup: (c: ControllerCase) => void | Promise<void>;
  /** What must hold of the server's state once the faults ended and everything settled. */
  readonly converges: ConvergencePredicate;
  /** Generated cases (default 50). */
  readonly numRuns?: number;
  /** fast-check seed (default 42); `FC_SEED=<n>` overrides it, `FC_SEED=random` draws one. */
  readonly seed?: number;
  /** `in-process` (default) or `http`. */
  readonly transport?: SimTransport;
  /** Shape of the generated histories (ConfigMap writes, faults, time steps). */
  readonly history?: HistoryOptions;
  /** Resources served besides the built-in ones (your custom resources). */
  readonly resources?: readonly SimResource[];
  /**
   * Runs once per case before anything starts, after the history's namespaces exist: pre-populate the cluster (for
   * example thousands of objects through `cluster.engine`, which bypasses the request log).
   */
  readonly prepare?: (cluster: SimCluster) => Promise<void> | void;
  /** How long the quiet phase may take to converge (virtual time, default 15 minutes). */
  readonly convergeWithinMs?: number;
  /** More invariants, checked at quiescence. */
  readonly invariants?: (c: ControllerCase, reconciles: readonly ReconcileRecord[]) => InvariantReport[];
  /**
   * Most reconciles one case may run (default 5 000). A controller that keeps re-triggering itself (each write
   * enqueues another reconcile, without virtual time passing) would otherwise never let the case end: past the bound
   * its reconciles are no longer called and the case fails with `reconcileStorm`.
   */
  readonly maxReconciles?: number;
  /** Where the failure report goes besides the thrown error (default nowhere). */
  readonly log?: (text: string) => void;
}

/** One case of {@link checkController}, for replaying a history by hand with {@link runControllerCase}. */
export interface ControllerCaseInput {
  readonly useWatchList: boolean;
  readonly steps: readonly SimStep[];
  /** Seed of the simulator's and the manager's randomness. */
  readonly seed: number;
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

/**
 * Runs one case of {@link checkController} with a given history (no generation, no shrinking) and returns the
 * reports, the timeline and the observed reconciles; never rejects for a violation (an exception thrown by `setup`
 * rejects).
 */
export async function runControllerCase(
  options: CheckControllerOptions,
  input: ControllerCaseInput,
): Promise<ControllerCaseOutcome> {
  const { useWatchList, steps, seed: caseSeed } = input;
  const cluster = await createSimCluster({
    seed: caseSeed,
    transport: options.transport ?? "in-process",
    ...(options.resources !== undefined && { resources: options.resources }),
  });
  const start = cluster.clock.now();
  const timeline: TimelineEntry[] = [];
  const at = () => Math.round(cluster.clock.now() - start);
  const reconciles: ReconcileRecord[] = [];
  const controllers: Controller[] = [];
  const running = new Map<string, number>();
  const runErrors: string[] = [];
  let seq = 0;
  let seenRequests = 0;
  const drainRequests = () => {
    for (; seenRequests < cluster.requests.length; seenRequests++) {
      const r = cluster.requests[seenRequests]!;
      const served = r.servedFrom === "" ? "" : ` from ${r.servedFrom}`;
      timeline.push({
        at: r.receivedAt === undefined ? at() : Math.round(r.receivedAt - start),
        kind: "request",
        text: `${r.verb} ${r.requestURI} → ${r.code}${served}`,
      });
    }
  };
  let observed = 0;
  let storm = false;
  const maxReconciles = options.maxReconciles ?? 5_000;
  // Requests finished so far go first: the timeline then reads in completion order within one virtual ms.
  const log = (kind: TimelineEntry["kind"], text: string) => {
    drainRequests();
    timeline.push({ at: at(), kind, text });
  };
  const observe = (reconciler: Reconciler, controller: () => string): Reconciler => {
    observed++;
    return (request, ctx) => {
      const key = requestKey(request);
      const name = controller();
      if (reconciles.length >= maxReconciles) {
        if (!storm) {
          storm = true;
          log("phase", `reconcile storm: ${maxReconciles} reconciles; reconcilers are no longer called`);
        }
        return undefined;
      }
      const rec: ReconcileRecord = { controller: name, key, startedAt: at(), startSeq: seq++ };
      reconciles.push(rec);
      const id = `${name}\u0000${key}`;
      const concurrent = running.get(id) ?? 0;
      running.set(id, concurrent + 1);
      if (concurrent > 0) log("reconcile", `${name} ${key} started while another reconcile of it runs`);
      const done = (outcome: string) => {
        rec.endSeq = seq++;
        rec.outcome = outcome;
        const left = (running.get(id) ?? 1) - 1;
        if (left === 0) running.delete(id);
        else running.set(id, left);
        log("reconcile", `${name} ${key} → ${outcome}${rec.startedAt === at() ? "" : ` (started @${rec.startedAt})`}`);
      };
      let result: ReturnType<Reconciler>;
      try {
        result = reconciler(request, ctx);
      } catch (err) {
        done(`error: ${err instanceof Error ? err.message : String(err)}`);
        throw err;
      }
      const settled = Promise.resolve(result).then(
        (r) => {
          done(describeResult(r));
          return r;
        },
        (err: unknown) => {
          done(`error: ${err instanceof Error ? err.message : String(err)}`);
          throw err;
        },
      );
      // settle() waits for running reconciles; the controller handles the rejection itself.
      void cluster.track(`reconcile ${name} ${key}`, settled).catch(() => undefined);
      return settled;
    };
  };
  const ac = new AbortController();
  let run: Promise<void> | undefined;
  try {
    await prepareNamespaces(cluster, options.history?.namespaces);
    await options.prepare?.(cluster);
    const manager = new Manager({
      listerWatcherFor: (r, { namespace }) =>
        listWatchFor(cluster.client, r, namespace === undefined ? {} : { namespace }),
      client: cluster.client,
      clock: cluster.clock,
      rand: seededRand(caseSeed),
      metrics: noopMetrics,
      informerOptions: { logger: silentLogger, reflector: { useWatchList, logger: silentLogger } },
    });
    const ctx: ControllerCase = {
      cluster,
      manager,
      useWatchList,
      builder: () =>
        new ObservedBuilder(manager, observe, (c) => {
          controllers.push(c);
        }),
      observe: (r, name) => observe(r, () => name),
    };
    await options.setup(ctx);
    const _managerEvents = manager.events$.subscribe((e) => {
      if (e.type === "error") {
        log("phase", `manager error from ${e.source}: ${e.error instanceof Error ? e.error.message : String(e.error)}`);
      } else if (e.type === "controllersStarted") {
        log("phase", `controllers started: ${e.names.join(", ")}`);
      }
    });
    let stopped = false;
    run = manager.run(ac.signal).then(
      () => {
        stopped = true;
      },
      (err: unknown) => {
        stopped = true;
        const msg = `manager.run rejected: ${err instanceof Error ? err.message : String(err)}`;
        runErrors.push(msg);
        log("phase", msg);
      },
    );
    log("phase", `manager started (${useWatchList ? "watch-list" : "list+watch"}, ${cluster.transport})`);
    const quiesce = async () => {
      await cluster.settle({ maxMs: 0 }).catch(() => undefined);
      drainRequests();
    };
    await cluster
      .settle({ maxMs: 120_000, until: () => manager.notReadyReason() === undefined || stopped })
      .catch((err: unknown) => log("phase", `not ready: ${err instanceof Error ? err.message : String(err)}`));
    drainRequests();
    for (const s of steps) {
      const outcome = await applyStep(cluster, s);
      log("step", `${describeStep(s)} → ${outcome}`);
      await quiesce();
    }
    cluster.faults.clearAll();
    log("phase", "faults cleared; waiting for convergence");
    const state = serverState(cluster);
    const idle = () =>
      controllers.every((c) => {
        const st = c.status();
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
    await cluster
      .settle({
        maxMs: options.convergeWithinMs ?? 15 * 60_000,
        until: () => stopped || (manager.notReadyReason() === undefined && idle() && holds()),
      })
      .catch((err: unknown) => log("phase", `did not converge: ${err instanceof Error ? err.message : String(err)}`));
    drainRequests();
    const reports: InvariantReport[] = [
      controllerConverges(options.converges, state, reconciles),
      { name: "managerRuns", ok: runErrors.length === 0, violations: runErrors },
      {
        name: "reconcileStorm",
        ok: !storm,
        violations: storm
          ? [`more than ${maxReconciles} reconciles in one case: the controller keeps re-triggering itself`]
          : [],
      },
      ...(options.invariants?.(ctx, reconciles) ?? []),
    ];
    if (observed === 0) {
      reports.push({
        name: "reconcilersObserved",
        ok: false,
        violations: ["setup observed no reconciler: build the controllers under test with c.builder() (or c.observe)"],
      });
    }
    ac.abort();
    reports.push(...(await stopCase(cluster, { what: "manager.run", stopped: () => stopped, withinMs: 120_000 })));
    if (stopped) {
      await run;
      run = undefined;
    }
    drainRequests();
    return { reports, timeline, reconciles };
  } finally {
    ac.abort();
    void run?.catch(() => undefined);
    await cluster.close();
  }
}

/** Renders a controller failure: seed, replay command, history, broken invariants and the timeline. */
export function formatControllerFailure(seed: number, input: ControllerCaseInput, outcome: CaseOutcome): string {
  return renderFailure(
    "checkController",
    seed,
    [
      `  reflectors: ${input.useWatchList ? "watch-list" : "list+watch"}; history (${input.steps.length} steps, shrunk):`,
      ...input.steps.map((s) => `    - ${describeStep(s)}`),
    ],
    outcome.reports,
    outcome.timeline,
  );
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
export async function checkController(options: CheckControllerOptions): Promise<CheckResult> {
  if (typeof options?.setup !== "function") throw new TypeError("checkController: options.setup must be a function");
  if (typeof options.converges !== "function") {
    throw new TypeError("checkController: options.converges must be a function (state) => boolean | string[]");
  }
  const seed = seedFromEnv(options.seed ?? 42);
  const numRuns = options.numRuns ?? 50;
  let caseNo = 0;
  const property = fc.asyncProperty(
    fc.boolean(),
    historyArb(options.history),
    fc.integer({ min: 1, max: 1_000_000 }),
    async (useWatchList, steps, caseSeed) => {
      caseNo++;
      const outcome = await runControllerCase(options, { useWatchList, steps, seed: caseSeed });
      return outcome.reports.every((r) => r.ok);
    },
  );
  const details = await fc.check(property, { numRuns, seed });
  if (!details.failed) return { numRuns: details.numRuns, seed };
  const counterexample = details.counterexample;
  if (counterexample === null) {
    throw new Error(`checkController: seed ${seed} failed without a counterexample: ${String(details.errorInstance)}`);
  }
  const [useWatchList, steps, caseSeed] = counterexample;
  const input = { useWatchList, steps, seed: caseSeed };
  const outcome = await runControllerCase(options, input);
  const text = `${formatControllerFailure(seed, input, outcome)}\n  (fast-check path ${details.counterexamplePath}; ${caseNo} cases run)`;
  options.log?.(text);
  throw new Error(text);
}
