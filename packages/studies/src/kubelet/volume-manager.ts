// kubelet's volume manager (pkg/kubelet/volumemanager): the desired-state populator and the reconciler, two loops every
// 100 ms, restricted to ConfigMap volumes, whose plugin asks to be remounted on every pod sync.
import type { KubeObject } from "@informer-ts/apimachinery";
import type { Clock, Timer } from "@informer-ts/clock";
import type { KubeletPod } from "./manager.js";

/** Period of the populator's and the reconciler's loops (`loopSleepDuration`, `populatorLoopSleepPeriod`). */
export const VOLUME_LOOP_PERIOD_MS = 100;

/** First retry delay of a failed mount (`nestedpendingoperations`' exponential backoff). */
export const MOUNT_RETRY_INITIAL_MS = 500;

/** Cap of a failed mount's retry delay (2 min 2 s). */
export const MOUNT_RETRY_MAX_MS = 122_000;

/** Options of {@link VolumeManager}. */
export interface VolumeManagerOptions {
  readonly clock: Clock;
  /** Reads a ConfigMap for a mount (the configmap volume plugin's `SetUpAt` → the ConfigMap manager's `getObject`). */
  readonly getConfigMap: (namespace: string, name: string) => Promise<KubeObject>;
  /** Offset in ms of the loops' tick grid (the node's phase). Default 0. */
  readonly phaseMs?: number;
}

interface Volume {
  readonly pod: KubeletPod;
  readonly name: string;
  /** Incremented by every (re)mount request; the volume needs a mount while `mounted < wanted`. */
  wanted: number;
  /** The request the last successful mount satisfied (0: never mounted). */
  mounted: number;
  inFlight: boolean;
  retryAt: number;
  failures: number;
}

/** Counters of a {@link VolumeManager}. */
export interface VolumeManagerStats {
  readonly mounts: number;
  readonly remounts: number;
  readonly mountFailures: number;
  readonly inFlight: number;
}

/**
 * One node's volume manager for ConfigMap volumes. `reprocessPod` (called by every pod sync, kubelet's
 * `WaitForAttachAndMount` → `ReprocessPod`) marks the pod for the populator; the populator's next tick adds its
 * volumes to the desired state and marks mounted ones "remount required" (ConfigMap, Secret, projected and downward
 * API volumes always ask for it); the reconciler's next tick starts a mount operation for every volume that needs one —
 * the operation reads the ConfigMap through the manager, so each pod sync costs one read per ConfigMap volume. A failed
 * mount is retried with exponential backoff (500 ms doubling to 2 min 2 s); one operation per volume at a time.
 *
 * The loops run on a 100 ms grid; ticks that would find nothing to do are not scheduled, which changes nothing but
 * the number of timers.
 *
 * Differences from kubelet: only ConfigMap volumes; no attach/detach, unmount or actual-state reconstruction;
 * `WaitForAttachAndMount` does not block the pod's sync (an already mounted volume satisfies it upstream too).
 */
export class VolumeManager {
  private readonly volumes = new Map<string, Volume>();
  private readonly reprocess = new Map<string, KubeletPod>();
  private populatorTimer: Timer | undefined;
  private reconcilerTimer: Timer | undefined;
  private reconcilerAt = Number.POSITIVE_INFINITY;
  private stopped = false;
  private counts = { mounts: 0, remounts: 0, mountFailures: 0 };
  private inFlightOps = 0;

  constructor(private readonly opts: VolumeManagerOptions) {}

  stats(): VolumeManagerStats {
    return { ...this.counts, inFlight: this.inFlightOps };
  }

  /** Asks the populator to (re)process the pod's volumes at its next tick. */
  reprocessPod(pod: KubeletPod): void {
    if (this.stopped) return;
    this.reprocess.set(pod.uid, pod);
    if (this.populatorTimer === undefined)
      this.populatorTimer = this.opts.clock.afterFunc(this.untilNextTick(), () => this.populate());
  }

  /** Adopts a pod whose volumes are already mounted (a kubelet that has been running). */
  adoptMounted(pod: KubeletPod): void {
    for (const name of pod.configMaps)
      this.volumes.set(`${pod.uid}/${name}`, {
        pod,
        name,
        wanted: 1,
        mounted: 1,
        inFlight: false,
        retryAt: 0,
        failures: 0,
      });
  }

  /** Drops a pod's volumes from the desired state. */
  removePod(uid: string): void {
    this.reprocess.delete(uid);
    for (const [k, v] of this.volumes) if (v.pod.uid === uid) this.volumes.delete(k);
  }

  /** Stops both loops; mount operations in flight finish but start nothing new. */
  stop(): void {
    this.stopped = true;
    this.populatorTimer?.stop();
    this.reconcilerTimer?.stop();
    this.populatorTimer = undefined;
    this.reconcilerTimer = undefined;
  }

  /** Virtual ms from now to the next tick of the 100 ms grid (strictly after now). */
  private untilNextTick(atOrAfter = this.opts.clock.now() + 1): number {
    const now = this.opts.clock.now();
    const phase = this.opts.phaseMs ?? 0;
    const k = Math.ceil((atOrAfter - phase) / VOLUME_LOOP_PERIOD_MS);
    return Math.max(1, phase + k * VOLUME_LOOP_PERIOD_MS - now);
  }

  private populate(): void {
    this.populatorTimer = undefined;
    if (this.stopped) return;
    for (const pod of this.reprocess.values()) {
      for (const name of new Set(pod.configMaps)) {
        const key = `${pod.uid}/${name}`;
        const v = this.volumes.get(key);
        if (v === undefined)
          this.volumes.set(key, { pod, name, wanted: 1, mounted: 0, inFlight: false, retryAt: 0, failures: 0 });
        else v.wanted++; // coalesces with a pending request: one mount satisfies every request up to it
      }
    }
    this.reprocess.clear();
    this.scheduleReconcile(this.opts.clock.now() + 1);
  }

  private scheduleReconcile(atOrAfter: number): void {
    if (this.stopped) return;
    const at = this.opts.clock.now() + this.untilNextTick(atOrAfter);
    if (this.reconcilerTimer !== undefined && this.reconcilerAt <= at) return;
    this.reconcilerTimer?.stop();
    this.reconcilerAt = at;
    this.reconcilerTimer = this.opts.clock.afterFunc(at - this.opts.clock.now(), () => this.reconcile());
  }

  private reconcile(): void {
    this.reconcilerTimer = undefined;
    this.reconcilerAt = Number.POSITIVE_INFINITY;
    if (this.stopped) return;
    const now = this.opts.clock.now();
    let nextRetry = Number.POSITIVE_INFINITY;
    for (const v of this.volumes.values()) {
      if (v.mounted >= v.wanted || v.inFlight) continue;
      if (v.retryAt > now) {
        nextRetry = Math.min(nextRetry, v.retryAt);
        continue;
      }
      this.mount(v);
    }
    if (nextRetry < Number.POSITIVE_INFINITY) this.scheduleReconcile(nextRetry);
  }

  private mount(v: Volume): void {
    const remount = v.mounted > 0;
    const request = v.wanted;
    v.inFlight = true;
    this.inFlightOps++;
    this.opts.getConfigMap(v.pod.namespace, v.name).then(
      () => {
        v.inFlight = false;
        this.inFlightOps--;
        v.failures = 0;
        v.retryAt = 0;
        if (remount) this.counts.remounts++;
        else this.counts.mounts++;
        v.mounted = request;
        // A remount asked for while this one was in flight is done at the next tick.
        if (v.mounted < v.wanted) this.scheduleReconcile(this.opts.clock.now() + 1);
      },
      () => {
        v.inFlight = false;
        this.inFlightOps--;
        this.counts.mountFailures++;
        v.retryAt =
          this.opts.clock.now() + Math.min(MOUNT_RETRY_MAX_MS, MOUNT_RETRY_INITIAL_MS * 2 ** Math.min(v.failures, 20));
        v.failures++;
        this.scheduleReconcile(v.retryAt);
      },
    );
  }
}
