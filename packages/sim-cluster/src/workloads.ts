import type { KubeObject } from "@informer-ts/apimachinery";
import type { SharedIndexInformer } from "@informer-ts/cache";
import {
  type CronJob,
  type DaemonSet,
  type Job,
  type KubeClient,
  type Node,
  type PersistentVolumeClaim,
  type Pod,
  type PodDisruptionBudget,
  resources,
  type StatefulSet,
} from "@informer-ts/client";
import type { Clock } from "@informer-ts/clock";
import type { Controller, EventRecorder, Manager } from "@informer-ts/controller";
import type { Logger, MetricsProvider } from "@informer-ts/instrumentation";
import type { ClusterControllerName } from "./cluster.js";
import { CronJobController } from "./cronjob/cronjob-controller.js";
import { DaemonSetController } from "./daemonset/daemon-set-controller.js";
import { DisruptionController } from "./disruption/disruption-controller.js";
import { JobController } from "./job/job-controller.js";
import { TTLAfterFinishedController } from "./job/ttl-after-finished-controller.js";
import { CONTROLLER_REVISIONS, StatefulSetController } from "./statefulset/stateful-set-controller.js";
import type { ControllerRevision } from "./statefulset/stateful-set-utils.js";

/** The batch, StatefulSet, DaemonSet and disruption controllers of a cluster, each present when its name is in the controller list. */
export interface WorkloadControllers {
  readonly jobs: JobController | undefined;
  readonly ttlAfterFinished: TTLAfterFinishedController | undefined;
  readonly cronJobs: CronJobController | undefined;
  readonly statefulSets: StatefulSetController | undefined;
  readonly daemonSets: DaemonSetController | undefined;
  readonly disruption: DisruptionController | undefined;
}

/** What {@link newWorkloadControllers} needs of the cluster. */
export interface WorkloadControllersOptions {
  readonly controllers: readonly ClusterControllerName[];
  readonly client: KubeClient;
  readonly clock: Clock;
  readonly logger: Logger;
  readonly metrics: MetricsProvider;
  readonly manager: Manager;
  readonly pods: SharedIndexInformer<Pod>;
  readonly nodes: SharedIndexInformer<Node>;
  readonly recorder: (component: string) => EventRecorder | undefined;
  readonly jobPodFailureBackoffMs?: number;
  readonly featureGates?: { readonly MaxUnavailableStatefulSet?: boolean };
}

/**
 * Builds the workload controllers (kube-controller-manager's `job`, `ttl-after-finished`, `cronjob`, `statefulset`,
 * `daemonset` and `disruption` controllers) on the cluster's manager and shared informers.
 */
export function newWorkloadControllers(o: WorkloadControllersOptions): WorkloadControllers {
  const base = { client: o.client, clock: o.clock, logger: o.logger, metrics: o.metrics };
  const withRecorder = (component: string) => {
    const r = o.recorder(component);
    return r === undefined ? {} : { recorder: r };
  };
  const jobs = o.controllers.includes("job")
    ? new JobController({
        ...base,
        ...withRecorder("job-controller"),
        jobs: o.manager.informerFor(resources.jobs) as SharedIndexInformer<Job>,
        pods: o.pods,
        ...(o.jobPodFailureBackoffMs !== undefined && { podFailureBackoffMs: o.jobPodFailureBackoffMs }),
      })
    : undefined;
  const ttlAfterFinished = o.controllers.includes("ttl-after-finished")
    ? new TTLAfterFinishedController({
        ...base,
        jobs: o.manager.informerFor(resources.jobs) as SharedIndexInformer<Job>,
      })
    : undefined;
  const cronJobs = o.controllers.includes("cronjob")
    ? new CronJobController({
        ...base,
        ...withRecorder("cronjob-controller"),
        cronJobs: o.manager.informerFor(resources.cronJobs) as SharedIndexInformer<CronJob>,
        jobs: o.manager.informerFor(resources.jobs) as SharedIndexInformer<Job>,
      })
    : undefined;
  const statefulSets = o.controllers.includes("statefulset")
    ? new StatefulSetController({
        ...base,
        ...withRecorder("statefulset-controller"),
        sets: o.manager.informerFor(resources.statefulSets) as SharedIndexInformer<StatefulSet>,
        pods: o.pods,
        revisions: o.manager.informerFor(CONTROLLER_REVISIONS) as SharedIndexInformer<ControllerRevision>,
        claims: o.manager.informerFor(resources.persistentVolumeClaims) as SharedIndexInformer<PersistentVolumeClaim>,
        maxUnavailableStatefulSet: o.featureGates?.MaxUnavailableStatefulSet === true,
      })
    : undefined;
  const daemonSets = o.controllers.includes("daemonset")
    ? new DaemonSetController({
        ...base,
        ...withRecorder("daemonset-controller"),
        sets: o.manager.informerFor(resources.daemonSets) as SharedIndexInformer<DaemonSet>,
        pods: o.pods,
        nodes: o.nodes,
        revisions: o.manager.informerFor(CONTROLLER_REVISIONS) as SharedIndexInformer<ControllerRevision>,
      })
    : undefined;
  const disruption = o.controllers.includes("disruption")
    ? new DisruptionController({
        client: o.client,
        clock: o.clock,
        metrics: o.metrics,
        budgets: o.manager.informerFor(resources.podDisruptionBudgets) as SharedIndexInformer<PodDisruptionBudget>,
        pods: o.pods,
        owners: {
          replicaSets: o.manager.informerFor(resources.replicaSets) as SharedIndexInformer<KubeObject>,
          deployments: o.manager.informerFor(resources.deployments) as SharedIndexInformer<KubeObject>,
          statefulSets: o.manager.informerFor(resources.statefulSets) as SharedIndexInformer<KubeObject>,
          replicationControllers: o.manager.informerFor(
            resources.replicationControllers,
          ) as SharedIndexInformer<KubeObject>,
        },
      })
    : undefined;
  return { jobs, ttlAfterFinished, cronJobs, statefulSets, daemonSets, disruption };
}

/** The runnables of the workload controllers, in start order. */
export function workloadControllerList(w: WorkloadControllers): Controller[] {
  return [
    w.jobs?.controller,
    w.jobs?.orphanPods,
    w.ttlAfterFinished?.controller,
    w.cronJobs?.controller,
    w.statefulSets?.controller,
    w.daemonSets?.controller,
    w.disruption?.controller,
  ].filter((c): c is Controller => c !== undefined);
}
