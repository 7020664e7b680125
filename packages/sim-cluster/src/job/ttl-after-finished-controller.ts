import { isNotFound, type KubeObject } from "@informer-ts/apimachinery";
import type { SharedIndexInformer } from "@informer-ts/cache";
import { type Job, type KubeClient, resources } from "@informer-ts/client";
import type { Clock } from "@informer-ts/clock";
import { Controller, type EventHandler, type Request } from "@informer-ts/controller";
import { type Logger, type MetricsProvider, safeLog } from "@informer-ts/instrumentation";
import { requestOf } from "../internal/controller-ref.js";
import { type Condition, keyOf } from "../internal/pod-util.js";

/** Options of a {@link TTLAfterFinishedController}. */
export interface TTLAfterFinishedControllerOptions {
  readonly client: KubeClient;
  readonly clock: Clock;
  readonly logger: Logger;
  readonly jobs: SharedIndexInformer<Job>;
  readonly metrics?: MetricsProvider;
  /** `ConcurrentTTLSyncs` (default 5). */
  readonly workers?: number;
}

/**
 * When a finished Job expires (`jobFinishTime` + `ttlSecondsAfterFinished`), or undefined when it has no TTL or has not
 * finished: the finish time is the `lastTransitionTime` of its `Complete` or `Failed` condition.
 */
export function jobExpireAt(job: Job): number | undefined {
  const ttl = (job.spec as { ttlSecondsAfterFinished?: number } | undefined)?.ttlSecondsAfterFinished;
  if (ttl === undefined) return undefined;
  const done = ((job.status?.conditions ?? []) as Condition[]).find(
    (c) => (c.type === "Complete" || c.type === "Failed") && c.status === "True",
  );
  if (done?.lastTransitionTime === undefined) return undefined;
  const finished = Date.parse(done.lastTransitionTime);
  return Number.isFinite(finished) ? finished + ttl * 1000 : undefined;
}

/**
 * The TTL-after-finished controller (`pkg/controller/ttlafterfinished/ttlafterfinished_controller.go`): deletes a
 * finished Job `ttlSecondsAfterFinished` after it finished, with foreground propagation (its pods go first) and the
 * Job's UID as precondition. Before deleting it reads the Job again from the server (a TTL changed meanwhile counts);
 * a Job not yet expired is synced again when it expires, on the Clock.
 */
export class TTLAfterFinishedController {
  readonly controller: Controller;

  constructor(private readonly o: TTLAfterFinishedControllerOptions) {
    const handler: EventHandler<KubeObject> = {
      create: (obj) => (jobExpireAt(obj as Job) === undefined ? [] : [requestOf(obj)]),
      update: (_old, cur) => (jobExpireAt(cur as Job) === undefined ? [] : [requestOf(cur)]),
      delete: () => [],
    };
    this.controller = new Controller({
      logger: o.logger,
      name: "ttl-after-finished-controller",
      reconciler: (req) => this.sync(req),
      watches: [{ informer: o.jobs as unknown as SharedIndexInformer<KubeObject>, handler, name: "Job" }],
      maxConcurrentReconciles: o.workers ?? 5,
      clock: o.clock,
      ...(o.metrics !== undefined && { metrics: o.metrics }),
      needLeaderElection: false,
    });
  }

  /** `processJob`. */
  private async sync(req: Request): Promise<{ requeueAfter: number } | undefined> {
    const cached = this.o.jobs.getIndexer().getByKey(`${req.namespace}/${req.name}`) as Job | undefined;
    if (cached === undefined || cached.metadata?.deletionTimestamp != null) return undefined;
    const left = (job: Job) => {
      const at = jobExpireAt(job);
      return at === undefined ? undefined : at - this.o.clock.now();
    };
    const cachedLeft = left(cached);
    if (cachedLeft === undefined) return undefined;
    if (cachedLeft > 0) return { requeueAfter: cachedLeft };
    let fresh: Job;
    try {
      fresh = await this.o.client.get(resources.jobs, req.name, { namespace: req.namespace });
    } catch (err) {
      if (isNotFound(err)) return undefined;
      throw err;
    }
    const freshLeft = left(fresh);
    if (freshLeft === undefined) return undefined;
    if (freshLeft > 0) return { requeueAfter: freshLeft };
    try {
      await this.o.client.delete(resources.jobs, req.name, {
        namespace: req.namespace,
        propagationPolicy: "Foreground",
        preconditions: { uid: fresh.metadata?.uid ?? "" },
      });
      safeLog(this.o.logger, "debug", "deleted expired job", { key: keyOf(fresh) });
    } catch (err) {
      if (!isNotFound(err)) throw err;
    }
    return undefined;
  }
}
