// The pods of the new ("probe") StatefulSets, as the StatefulSet controller creates them over several syncs.
import type { Clock } from "@informer-ts/clock";

/** The probes' pod settings (see `StatefulSetResyncOptions`). */
export interface ProbePodSettings {
  readonly replicas: number;
  readonly podReadySeconds: number;
  readonly podManagementPolicy: "OrderedReady" | "Parallel";
}

interface PodState {
  /** Virtual times each pod (ordinal order) was created. */
  readonly createdAt: number[];
  /** Virtual times each pod became Ready (set when its ready timer fires). */
  readonly readyAt: number[];
  syncs: number;
  changed: boolean;
}

/**
 * A model of how upstream's StatefulSet controller creates a StatefulSet's pods, for the probes only (the 2000
 * existing StatefulSets have their pods already; their syncs change nothing). Follows
 * `pkg/controller/statefulset/stateful_set_control.go` (`processReplica`/`runForAll`): with `OrderedReady` a sync
 * creates the first missing ordinal and returns while any pod before it is not Running and Ready — one pod per sync;
 * with `Parallel` it creates every missing pod in one sync (upstream's `slowStartBatch`: batches of 1, 2, 4, … within
 * the sync). And `stateful_set.go`'s pod handlers (`addPod`,
 * `updatePod`) enqueue the owning StatefulSet on each pod event: here the pod's creation and its becoming Ready
 * `podReadySeconds` later enqueue the key at once (the pod informer's latency is not modelled), behind whatever the
 * queue holds — so each further pod waits out the backlog again.
 *
 * Modelled inside the study (no Pod objects in the simulator, no kubelet): the study measures queueing, and a
 * StatefulSet controller in sim-cluster is not depended on.
 */
export class ProbePods {
  private readonly state = new Map<string, PodState>();

  constructor(
    private readonly clock: Clock,
    private readonly settings: ProbePodSettings,
    private readonly enqueue: (key: string) => void,
  ) {}

  /** Starts tracking a probe StatefulSet created now (no pods yet). */
  track(key: string): void {
    this.state.set(key, { createdAt: [], readyAt: [], syncs: 0, changed: false });
  }

  /** Whether a pod event happened since the last sync of `key` (and clears it). */
  takeChanged(key: string): boolean {
    const st = this.state.get(key);
    if (st === undefined || !st.changed) return false;
    st.changed = false;
    return true;
  }

  /** One sync of `key`: creates the pods the policy allows now; a no-op for a key not tracked. */
  sync(key: string): void {
    const st = this.state.get(key);
    if (st === undefined) return;
    const { replicas, podManagementPolicy } = this.settings;
    if (st.createdAt.length >= replicas) return;
    st.syncs++;
    if (podManagementPolicy === "Parallel") {
      while (st.createdAt.length < replicas) this.create(key, st);
      return;
    }
    // OrderedReady: the next ordinal only once every earlier pod is Ready.
    if (st.readyAt.length === st.createdAt.length) this.create(key, st);
  }

  private create(key: string, st: PodState): void {
    const ordinal = st.createdAt.length;
    st.createdAt.push(this.clock.now());
    this.podEvent(key, st);
    this.clock.afterFunc(this.settings.podReadySeconds * 1000, () => {
      st.readyAt[ordinal] = this.clock.now();
      this.podEvent(key, st);
    });
  }

  private podEvent(key: string, st: PodState): void {
    st.changed = true;
    this.enqueue(key);
  }

  /** Pods created so far for `key`. */
  created(key: string): number {
    return this.state.get(key)?.createdAt.length ?? 0;
  }

  /** Syncs of `key` that had pods to create. */
  syncs(key: string): number {
    return this.state.get(key)?.syncs ?? 0;
  }

  /** When the last of `key`'s replicas was created, or undefined while some are missing. */
  allCreatedAt(key: string): number | undefined {
    const st = this.state.get(key);
    return st !== undefined && st.createdAt.length >= this.settings.replicas ? st.createdAt.at(-1) : undefined;
  }
}
