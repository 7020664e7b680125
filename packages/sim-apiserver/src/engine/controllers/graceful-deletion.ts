import { isConflict, isNotFound } from "@informer-ts/apimachinery";
import type { Clock, Timer } from "@informer-ts/clock";
import type { RegistryStore } from "../registry/index.js";
import type { SimResource } from "../resources.js";
import type { MvccStorage, StorageEvent } from "../storage/index.js";

/** The user agent of the deletes that finish an expired graceful deletion. */
export const GRACEFUL_DELETION_USER_AGENT = "kube-controller-manager/v1.34.0 (pod-garbage-collector)";

/**
 * Finishes graceful deletions whose grace period ended, on the engine's clock: a pod the registry marked with
 * `deletionTimestamp` and `deletionGracePeriodSeconds` > 0 (see `registry/graceful-delete.ts`) is deleted with grace
 * period 0 and its uid as precondition once the clock reaches its deletion timestamp — the kubelet's final delete
 * when no kubelet confirmed earlier. One timer per pending pod; a pod deleted, recreated or re-timed earlier moves
 * or drops its timer.
 *
 * Differences from kube-apiserver: upstream nothing in the control plane deletes a terminating pod at its deadline
 * (the kubelet does, or the pod garbage collector once its node is gone); the simulator has no kubelet unless a
 * test plays one, so the deadline stands in for it.
 */
export class GracefulDeletion {
  private readonly timers = new Map<string, { uid: string; at: number; timer: Timer }>();
  private readonly unsubscribe: () => void;
  private stopped = false;

  constructor(
    private readonly deps: {
      readonly storage: MvccStorage;
      readonly registry: RegistryStore;
      readonly clock: Clock;
      /** Where a failed delete is reported (the engine's logger). */
      readonly log?: (line: string) => void;
    },
  ) {
    this.unsubscribe = deps.storage.subscribe({ onEvent: (ev) => this.onEvent(ev) });
  }

  /** Pods whose graceful deletion is pending now (tests, diagnostics). */
  get pending(): number {
    return this.timers.size;
  }

  private onEvent(ev: StorageEvent): void {
    if (this.stopped || ev.resource.group !== "" || ev.resource.resource !== "pods") return;
    const id = ev.key;
    const m = ev.object.metadata ?? {};
    const grace = m.deletionGracePeriodSeconds ?? 0;
    if (ev.type === "DELETED" || m.deletionTimestamp === undefined || grace <= 0) {
      this.drop(id);
      return;
    }
    const at = Date.parse(m.deletionTimestamp);
    const uid = m.uid ?? "";
    const existing = this.timers.get(id);
    if (existing !== undefined && existing.uid === uid && existing.at === at) return;
    this.drop(id);
    const delay = Math.max(0, at - this.deps.clock.now());
    const timer = this.deps.clock.afterFunc(delay, () => {
      this.timers.delete(id);
      this.expire(ev.resource, m.namespace ?? "", m.name ?? "", uid);
    });
    this.timers.set(id, { uid, at, timer });
  }

  private expire(r: SimResource, namespace: string, name: string, uid: string): void {
    try {
      this.deps.registry.delete(r, namespace, name, { gracePeriodSeconds: 0, preconditions: { uid } });
    } catch (err) {
      // Deleted or replaced meanwhile: nothing left to finish. Anything else is reported, never thrown into a timer.
      if (!isNotFound(err) && !isConflict(err)) {
        this.deps.log?.(
          `graceful deletion of pod ${namespace}/${name} failed at its deadline: ${err instanceof Error ? err.message : String(err)}`,
        );
      }
    }
  }

  private drop(id: string): void {
    const t = this.timers.get(id);
    if (t === undefined) return;
    t.timer.stop();
    this.timers.delete(id);
  }

  /** Stops every timer and the storage subscription. */
  stop(): void {
    this.stopped = true;
    for (const t of this.timers.values()) t.timer.stop();
    this.timers.clear();
    this.unsubscribe();
  }
}
