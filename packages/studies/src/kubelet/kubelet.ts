// One node's kubelet, reduced to what decides its ConfigMap traffic: pod workers, the volume manager and the
// ConfigMap manager of the configured change-detection strategy.
import type { KubeObject } from "@informer-ts/apimachinery";
import type { Clock, Rand } from "@informer-ts/clock";
import { onAbort } from "@informer-ts/instrumentation";
import { CacheBasedManager } from "./cache-based-manager.js";
import type { ChangeDetectionStrategy, ConfigMapManager, KubeletPod, ObjectClient } from "./manager.js";
import { DEFAULT_SYNC_FREQUENCY_MS, PodWorkers, SYNC_TICK_MS } from "./pod-workers.js";
import { SimpleManager } from "./simple-manager.js";
import { OBJECT_TTL_ANNOTATION_KEY } from "./ttl-controller.js";
import { VOLUME_LOOP_PERIOD_MS, VolumeManager } from "./volume-manager.js";
import { WatchBasedManager } from "./watch-based-manager.js";

/** Options of {@link SimKubelet}. */
export interface SimKubeletOptions {
  readonly nodeName: string;
  readonly clock: Clock;
  readonly rand: Rand;
  /** `configMapAndSecretChangeDetectionStrategy`. */
  readonly strategy: ChangeDetectionStrategy;
  /** The kubelet's ConfigMap API calls (e.g. {@link simObjectClient}). */
  readonly client: ObjectClient;
  /**
   * The kubelet's view of its own Node (its node lister: no request per read); the Cache strategy reads its TTL from
   * the `node.alpha.kubernetes.io/ttl` annotation.
   */
  readonly getNode: () => KubeObject | undefined;
  /**
   * kubelet version as `major.minor` (default "1.28", the write-up's). From 1.29 the Cache strategy no longer
   * invalidates its entries on every pod sync (kubernetes#120255); before 1.19 the Watch strategy keeps watching
   * immutable objects (`ImmutableEphemeralVolumes` off by default).
   */
  readonly kubeletVersion?: string;
  /** `--sync-frequency` in ms. Default 60 s. */
  readonly syncFrequencyMs?: number;
}

/** Counters of a {@link SimKubelet}. */
export interface SimKubeletStats {
  readonly pods: number;
  readonly podSyncs: number;
  readonly mounts: number;
  readonly remounts: number;
  readonly mountFailures: number;
  readonly mountsInFlight: number;
}

/**
 * The minor version of a `major.minor[.patch]` kubelet version, or a RangeError naming the bad value.
 */
export function kubeletMinorVersion(version: string): number {
  const m = /^v?1\.(\d+)(\.\d+)?$/.exec(version);
  if (m === null) throw new RangeError(`kubelet version must look like 1.28 or v1.28.0, got "${version}"`);
  return Number(m[1]);
}

/**
 * The ConfigMap manager kubelet builds for a strategy (`NewSimpleConfigMapManager`, `NewCachingConfigMapManager`,
 * `NewWatchingConfigMapManager`).
 */
export function newConfigMapManager(
  strategy: ChangeDetectionStrategy,
  deps: {
    readonly client: ObjectClient;
    readonly clock: Clock;
    readonly rand: Rand;
    readonly getTTL: () => number | undefined;
    readonly kubeletVersion?: string;
    readonly syncFrequencyMs?: number;
  },
): ConfigMapManager {
  switch (strategy) {
    case "Get":
      return new SimpleManager(deps.client);
    case "Cache":
      return new CacheBasedManager({
        client: deps.client,
        clock: deps.clock,
        getTTL: deps.getTTL,
        invalidateOnEveryRegistration: kubeletMinorVersion(deps.kubeletVersion ?? "1.28") < 29,
      });
    case "Watch":
      return new WatchBasedManager({
        client: deps.client,
        clock: deps.clock,
        rand: deps.rand,
        resyncIntervalMs: deps.syncFrequencyMs ?? DEFAULT_SYNC_FREQUENCY_MS,
        // ImmutableEphemeralVolumes: alpha (off) in 1.18, on by default from 1.19.
        stopImmutable: kubeletMinorVersion(deps.kubeletVersion ?? "1.28") >= 19,
      });
    default:
      throw new RangeError(`unknown change-detection strategy "${String(strategy)}"`);
  }
}

/** The TTL in ms of a Node's `node.alpha.kubernetes.io/ttl` annotation (seconds); undefined when absent or not an integer. */
export function nodeObjectTTLMs(node: KubeObject | undefined): number | undefined {
  const raw = node?.metadata?.annotations?.[OBJECT_TTL_ANNOTATION_KEY];
  if (raw === undefined || !/^-?\d+$/.test(raw)) return undefined;
  return Number(raw) * 1000;
}

/**
 * A simulated kubelet: every pod sync (on a pod change, and every 60–90 s from the {@link PodWorkers}) registers the pod
 * with the {@link ConfigMapManager} and has the {@link VolumeManager} remount its ConfigMap volumes, each remount
 * reading the ConfigMap through the manager. What reaches the apiserver then depends only on the strategy: a GET from
 * etcd per remount (Get; Cache ≤ v1.28, whose registration invalidates), a GET from the watch cache when the TTL has
 * run out (Cache ≥ v1.29), or one WATCH per ConfigMap and nothing per remount (Watch).
 *
 * `run(signal)` starts the loops; it resolves when the signal aborts and everything (timers, reflectors and their
 * watches) is released.
 */
export class SimKubelet {
  readonly manager: ConfigMapManager;
  readonly podWorkers: PodWorkers;
  readonly volumeManager: VolumeManager;

  constructor(private readonly opts: SimKubeletOptions) {
    this.manager = newConfigMapManager(opts.strategy, {
      client: opts.client,
      clock: opts.clock,
      rand: opts.rand,
      getTTL: () => nodeObjectTTLMs(opts.getNode()),
      ...(opts.kubeletVersion !== undefined && { kubeletVersion: opts.kubeletVersion }),
      ...(opts.syncFrequencyMs !== undefined && { syncFrequencyMs: opts.syncFrequencyMs }),
    });
    // Each node's loops run on their own phase, as kubelets started at different times do.
    const phase = opts.rand.float();
    this.volumeManager = new VolumeManager({
      clock: opts.clock,
      getConfigMap: (ns, name) => this.manager.getObject(ns, name),
      phaseMs: Math.floor(phase * VOLUME_LOOP_PERIOD_MS),
    });
    this.podWorkers = new PodWorkers({
      clock: opts.clock,
      rand: opts.rand,
      syncPod: (pod) => this.syncPod(pod),
      tickPhaseMs: 1 + Math.floor(phase * (SYNC_TICK_MS - 1)),
      ...(opts.syncFrequencyMs !== undefined && { syncFrequencyMs: opts.syncFrequencyMs }),
    });
  }

  get nodeName(): string {
    return this.opts.nodeName;
  }

  /** A pod newly bound to this node, or changed: synced now. */
  updatePod(pod: KubeletPod): void {
    this.podWorkers.updatePod(pod);
  }

  /**
   * A pod already running when the model starts: its ConfigMaps are registered and mounted as a kubelet that has been
   * up for a while has them (without requests: Cache and Get entries start stale, Watch reflectors start now), and its
   * next resync is due in `resyncInMs`.
   */
  adoptRunningPod(pod: KubeletPod, resyncInMs: number): void {
    this.manager.registerPod(pod);
    this.volumeManager.adoptMounted(pod);
    this.podWorkers.adoptPod(pod, resyncInMs);
  }

  /** A pod removed from the node. */
  removePod(pod: KubeletPod): void {
    this.podWorkers.removePod(pod.uid);
    this.volumeManager.removePod(pod.uid);
    this.manager.unregisterPod(pod);
  }

  stats(): SimKubeletStats {
    const v = this.volumeManager.stats();
    return {
      pods: this.podWorkers.size,
      podSyncs: this.podWorkers.syncs,
      mounts: v.mounts,
      remounts: v.remounts,
      mountFailures: v.mountFailures,
      mountsInFlight: v.inFlight,
    };
  }

  async run(signal: AbortSignal): Promise<void> {
    this.podWorkers.start();
    // onAbort keeps one listener on a signal however many kubelets share it (no MaxListenersExceededWarning).
    await new Promise<void>((resolve) => onAbort(signal, resolve));
    this.podWorkers.stop();
    this.volumeManager.stop();
    await this.manager.stop();
  }

  private syncPod(pod: KubeletPod): void {
    this.manager.registerPod(pod);
    this.volumeManager.reprocessPod(pod);
  }
}
