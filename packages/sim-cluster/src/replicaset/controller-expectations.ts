import type { Clock } from "@informer-ts/clock";

/** How long expectations may stay unfulfilled before a sync goes ahead anyway (`ExpectationsTimeout`, 5 minutes). */
export const EXPECTATIONS_TIMEOUT_MS = 5 * 60_000;

/** The creations and deletions a controller still waits to observe for one key (`ControlleeExpectations`). */
export interface ControlleeExpectations {
  add: number;
  del: number;
  readonly key: string;
  timestamp: number;
}

/**
 * Controller expectations (`ControllerExpectations` of `pkg/controller/controller_utils.go`): before a controller
 * creates or deletes `n` pods it *expects* them, and each creation/deletion its informer observes lowers the count; a
 * sync whose expectations are not yet satisfied skips managing replicas, so the controller never acts on a cache that
 * has not caught up with its own writes. Expectations are satisfied when both counts are ≤ 0, when they are older than
 * {@link EXPECTATIONS_TIMEOUT_MS} on the clock (a lost watch event must not wedge the controller), or when there are
 * none for the key (a new controller, or one whose expectations were deleted).
 */
export class ControllerExpectations {
  private readonly store = new Map<string, ControlleeExpectations>();

  constructor(private readonly clock: Clock) {}

  /** `GetExpectations`. */
  getExpectations(key: string): ControlleeExpectations | undefined {
    return this.store.get(key);
  }

  /** `SatisfiedExpectations`: see the class contract. */
  satisfiedExpectations(key: string): boolean {
    const exp = this.store.get(key);
    if (exp === undefined) return true;
    if (exp.add <= 0 && exp.del <= 0) return true;
    return this.clock.now() - exp.timestamp > EXPECTATIONS_TIMEOUT_MS;
  }

  /** `DeleteExpectations`: the controller is gone. */
  deleteExpectations(key: string): void {
    this.store.delete(key);
  }

  /** `SetExpectations`: replaces the key's counts and restarts their timeout. */
  setExpectations(key: string, add: number, del: number): void {
    this.store.set(key, { key, add, del, timestamp: this.clock.now() });
  }

  /** `ExpectCreations`. */
  expectCreations(key: string, adds: number): void {
    this.setExpectations(key, adds, 0);
  }

  /** `ExpectDeletions`. */
  expectDeletions(key: string, dels: number): void {
    this.setExpectations(key, 0, dels);
  }

  /** `RaiseExpectations` (only when the key has expectations). */
  raiseExpectations(key: string, add: number, del: number): void {
    const exp = this.store.get(key);
    if (exp === undefined) return;
    exp.add += add;
    exp.del += del;
  }

  /** `LowerExpectations` (only when the key has expectations). */
  lowerExpectations(key: string, add: number, del: number): void {
    const exp = this.store.get(key);
    if (exp === undefined) return;
    exp.add -= add;
    exp.del -= del;
  }

  /** `CreationObserved`: one expected creation was seen. */
  creationObserved(key: string): void {
    this.lowerExpectations(key, 1, 0);
  }

  /** `DeletionObserved`: one expected deletion was seen. */
  deletionObserved(key: string): void {
    this.lowerExpectations(key, 0, 1);
  }
}

/**
 * Expectations that also track *which* pods are expected to go (`UIDTrackingControllerExpectations`, keyed by pod
 * key rather than UID as upstream's ReplicaSet controller uses it): a deletion is observed once per pod, whether the
 * informer sees the pod get its deletion timestamp, then disappear, or both.
 */
export class UIDTrackingControllerExpectations extends ControllerExpectations {
  private readonly uids = new Map<string, Set<string>>();

  /** `GetUIDs`: the pod keys the controller expects to be deleted. */
  getUIDs(controllerKey: string): ReadonlySet<string> | undefined {
    return this.uids.get(controllerKey);
  }

  /** `ExpectDeletions` with the pods' keys. Throws when the key already tracks deletions (a bug upstream too). */
  expectDeletionsOf(controllerKey: string, deletedKeys: readonly string[]): void {
    const existing = this.uids.get(controllerKey);
    if (existing !== undefined && existing.size > 0) {
      throw new Error(`clobbering existing delete keys of ${controllerKey}: ${[...existing].join(", ")}`);
    }
    this.uids.set(controllerKey, new Set(deletedKeys));
    this.expectDeletions(controllerKey, deletedKeys.length);
  }

  /** `DeletionObserved` of one pod: lowers the count once per tracked pod key. */
  deletionObservedOf(controllerKey: string, deleteKey: string): void {
    const set = this.uids.get(controllerKey);
    if (set?.has(deleteKey) !== true) return;
    this.lowerExpectations(controllerKey, 0, 1);
    set.delete(deleteKey);
  }

  /** `DeleteExpectations`: counts and tracked keys. */
  override deleteExpectations(key: string): void {
    super.deleteExpectations(key);
    this.uids.delete(key);
  }
}
