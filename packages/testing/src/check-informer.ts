import type { KubeObject } from "@informer-ts/apimachinery";
import {
  newSharedIndexInformer,
  type ResourceEventHandler,
  type ResourceEventHandlerRegistration,
  type SharedIndexInformer,
  silentLogger,
} from "@informer-ts/cache";
import { seededRand } from "@informer-ts/clock";
import fc from "fast-check";
import type { SimStep } from "./arbitraries.js";
import {
  type CaseOutcome,
  type CheckResult,
  checkSubjectWith,
  type PropertyOptions,
  renderSubjectFailure,
  runCaseWith,
  runSubjectCaseWith,
  type ServerView,
  type SubjectSpec,
  type TimelineEntry,
} from "./check-subject.js";
import { type BystanderPlan, bystanderHandler, bystandersArb, describeBystander } from "./handler-behaviours.js";
import type { InvariantReport } from "./invariants.js";
import type { SimCluster } from "./sim-cluster.js";

/** What a {@link CheckInformerOptions.informer} factory and extra invariants get for one generated case. */
export interface InformerCase {
  readonly cluster: SimCluster;
  /** Whether this case's reflector uses watch-list (generated). */
  readonly useWatchList: boolean;
  /** Virtual ms since the case started (the timeline's clock). */
  now(): number;
  /** Adds a line to the case's timeline (printed with a failure). */
  log(kind: TimelineEntry["kind"], text: string): void;
}

/** Options of {@link checkInformer} (besides the runner's shared {@link PropertyOptions}). */
export interface CheckInformerOptions extends PropertyOptions {
  /** The informer under test (default: a shared informer on ConfigMaps in every namespace, via the cluster's client). */
  readonly informer?: (c: InformerCase) => SharedIndexInformer<KubeObject>;
  /**
   * Your handler: it gets every notification after the kit recorded it; an exception it throws is a violation. A
   * function is called once per case, before the informer starts, for a handler that keeps state (a fresh one each
   * case); your `invariants` can then judge that state.
   */
  readonly handler?: ResourceEventHandler<KubeObject> | ((c: InformerCase) => ResourceEventHandler<KubeObject>);
  /** More invariants, checked at quiescence. */
  readonly invariants?: (c: InformerCase) => InvariantReport[];
  /**
   * Also generate bystander handlers on the same informer — slow, throwing, async-rejecting, added and removed
   * mid-run — whose misbehaviour must not disturb the checked handler (default false).
   */
  readonly bystanders?: boolean;
  /**
   * What the informer's store and the handler's view must equal at quiescence (default the server's ConfigMaps): the
   * server's filtered view for an informer with a selector (see {@link ServerView}).
   */
  readonly serverView?: ServerView;
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

/** checkInformer as a subject of the subject core: the informer, the checked handler and the bystanders. */
function informerSpec(options: CheckInformerOptions): SubjectSpec<readonly BystanderPlan[]> {
  return {
    checker: "checkInformer",
    name: "informer",
    stopWhat: "informer.run",
    ...(options.invariants !== undefined && { invariants: options.invariants }),
    ...(options.serverView !== undefined && { serverView: options.serverView }),
    story: (useWatchList, bystanders, steps) => ({
      head: `  reflector: ${useWatchList ? "watch-list" : "list+watch"}; history (${steps.length} steps, shrunk):`,
      tail: [
        ...(bystanders.length > 0 ? ["  bystander handlers:"] : []),
        ...bystanders.map((b) => `    - ${describeBystander(b)}`),
      ],
    }),
    subject: (c) => {
      const { cluster, useWatchList } = c;
      const informer =
        options.informer?.(c) ??
        newSharedIndexInformer<KubeObject>(c.listerWatcher, undefined, {
          clock: cluster.clock,
          rand: seededRand(c.seed),
          name: "checkInformer",
          logger: silentLogger,
          reflector: { useWatchList, logger: silentLogger },
        });
      const user = typeof options.handler === "function" ? options.handler(c) : options.handler;
      c.recordNotifications(informer, user);
      const running = informer.run(c.signal);
      const registered = new Map<BystanderPlan, ResourceEventHandlerRegistration>();
      return {
        store: informer.getStore(),
        hasSynced: () => informer.hasSynced(),
        afterStep: (applied) => {
          for (const p of c.variant) {
            if (p.addAfter === applied) {
              registered.set(p, informer.addEventHandler(bystanderHandler(p.behaviour, cluster.clock)));
              c.log("phase", `added ${describeBystander(p)}`);
            }
            const reg = registered.get(p);
            if (p.removeAfter === applied && reg !== undefined) {
              informer.removeEventHandler(reg);
              registered.delete(p);
              c.log("phase", `removed ${describeBystander(p)}`);
            }
          }
        },
        stop: () => running,
      };
    },
  };
}

/**
 * Runs one case of {@link checkInformer} — a given history, or the replay token a failure printed (that case
 * regenerated exactly, its `story` in the outcome) — with no generation and no shrinking, and returns the invariant
 * reports and the timeline; never rejects for a violation. Pins a found counterexample as a regression test.
 */
export function runInformerCase(
  options: CheckInformerOptions,
  input: InformerCaseInput | string,
): Promise<CaseOutcome> {
  const spec = informerSpec(options);
  if (typeof input === "string") return runCaseWith(spec, options, bystanderArb(options), input);
  return runSubjectCaseWith(spec, options, { ...input, variant: input.bystanders ?? [] });
}

function bystanderArb(options: CheckInformerOptions): fc.Arbitrary<readonly BystanderPlan[]> {
  return options.bystanders === true ? bystandersArb(options.history?.maxSteps ?? 25) : fc.constant([]);
}

/** Renders a failure: the seed, how to replay it, the failed invariants and the case's timeline. */
export function formatFailure(
  seed: number,
  useWatchList: boolean,
  steps: readonly SimStep[],
  outcome: CaseOutcome,
  bystanders: readonly BystanderPlan[] = [],
): string {
  return renderSubjectFailure(informerSpec({}), seed, { useWatchList, steps, variant: bystanders }, outcome);
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
  return checkSubjectWith(informerSpec(options), options, bystanderArb(options), 100);
}
