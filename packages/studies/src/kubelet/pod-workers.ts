// kubelet's pod workers (pkg/kubelet/pod_workers.go) with the sync loop's one-second tick (kubelet.go syncLoop):
// every pod is synced when it changes and again after the sync frequency plus jitter.
import { type Clock, jitter, type Rand, type Ticker } from "@informer-ts/clock";
import type { KubeletPod } from "./manager.js";

/** kubelet's `--sync-frequency` default: each pod is synced again this long (plus jitter) after its last sync. */
export const DEFAULT_SYNC_FREQUENCY_MS = 60_000;

/** `workerResyncIntervalJitterFactor`: the resync delay is drawn from [frequency, frequency × 1.5). */
export const WORKER_RESYNC_JITTER_FACTOR = 0.5;

/** The period of the sync loop's `syncTicker`, which hands due pods to their workers. */
export const SYNC_TICK_MS = 1000;

/** Why a pod is synced (`kubetypes.SyncPodType`). */
export type SyncPodType = "create" | "update" | "sync";

/** Options of {@link PodWorkers}. */
export interface PodWorkersOptions {
  readonly clock: Clock;
  readonly rand: Rand;
  /** Called for every sync of a pod (kubelet's `syncPod`): synchronous, as the model's syncs take no virtual time. */
  readonly syncPod: (pod: KubeletPod, type: SyncPodType) => void;
  /** `--sync-frequency` in ms. Default {@link DEFAULT_SYNC_FREQUENCY_MS}. */
  readonly syncFrequencyMs?: number;
  /** Offset in ms of the sync ticker's first tick (the node's phase). Default the full period. */
  readonly tickPhaseMs?: number;
}

interface PodState {
  pod: KubeletPod;
  dueAt: number;
}

/**
 * The pod workers of one node: {@link updatePod} syncs a pod at once (a new pod, or a change from the apiserver);
 * after every sync the pod is queued for a resync `jitter(syncFrequency, 0.5)` later, and the sync loop's 1 s ticker
 * hands due pods to their workers. So a pod with no changes is synced every 60–90 s (plus up to a tick), and each sync
 * re-registers the pod with the ConfigMap manager and asks the volume manager to remount its ConfigMap volumes.
 *
 * Differences from kubelet: one synchronous `syncPod` call stands for the worker goroutine's sync (it takes no
 * virtual time); pod termination, back-off after a failed sync and the PLEG are not modelled.
 */
export class PodWorkers {
  private readonly pods = new Map<string, PodState>();
  private ticker: Ticker | undefined;
  private startTimer: { stop(): boolean } | undefined;
  private nSyncs = 0;

  constructor(private readonly opts: PodWorkersOptions) {}

  /** Pod syncs so far. */
  get syncs(): number {
    return this.nSyncs;
  }

  /** Pods known. */
  get size(): number {
    return this.pods.size;
  }

  /** Starts the sync loop's ticker. */
  start(): void {
    if (this.ticker !== undefined || this.startTimer !== undefined) return;
    const phase = this.opts.tickPhaseMs ?? SYNC_TICK_MS;
    this.startTimer = this.opts.clock.afterFunc(phase, () => {
      this.startTimer = undefined;
      this.tick();
      this.ticker = this.opts.clock.newTicker(SYNC_TICK_MS, () => this.tick());
    });
  }

  stop(): void {
    this.startTimer?.stop();
    this.startTimer = undefined;
    this.ticker?.stop();
    this.ticker = undefined;
  }

  /** A new or changed pod: synced now (`UpdatePod`). */
  updatePod(pod: KubeletPod): void {
    const state = this.pods.get(pod.uid);
    const type: SyncPodType = state === undefined ? "create" : "update";
    const s = state ?? { pod, dueAt: 0 };
    s.pod = pod;
    this.pods.set(pod.uid, s);
    this.sync(s, type);
  }

  /**
   * A pod already running when the model starts (a kubelet that has been up for a while): registered without a sync,
   * its next sync due in `resyncInMs`.
   */
  adoptPod(pod: KubeletPod, resyncInMs: number): void {
    this.pods.set(pod.uid, { pod, dueAt: this.opts.clock.now() + resyncInMs });
  }

  /** Forgets a pod (it will not be synced again). */
  removePod(uid: string): void {
    this.pods.delete(uid);
  }

  private tick(): void {
    const now = this.opts.clock.now();
    for (const s of this.pods.values()) if (s.dueAt <= now) this.sync(s, "sync");
  }

  private sync(s: PodState, type: SyncPodType): void {
    this.nSyncs++;
    this.opts.syncPod(s.pod, type);
    const freq = this.opts.syncFrequencyMs ?? DEFAULT_SYNC_FREQUENCY_MS;
    s.dueAt = this.opts.clock.now() + jitter(freq, WORKER_RESYNC_JITTER_FACTOR, this.opts.rand);
  }
}
