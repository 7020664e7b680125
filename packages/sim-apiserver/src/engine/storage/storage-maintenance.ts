import type { Clock, Timer } from "@informer-ts/clock";
import type { ResourceTable } from "../registry/index.js";
import type { MvccStorage } from "./storage.js";

/**
 * What keeps storage and the watch caches moving between requests: etcd's progress notifications (idle caches catch
 * up with the global revision) and kube-apiserver's periodic compaction (to the revision seen at the previous tick).
 * Both timers run only while there is something to do, so an idle engine has no pending timers.
 */
export class StorageMaintenance {
  private progressTimer: Timer | undefined;
  private compactionTimer: Timer | undefined;
  private lastObservedRevision = 0;
  private writesSinceCompaction = false;
  private stopped = false;

  constructor(
    private readonly clock: Clock,
    private readonly storage: MvccStorage,
    private readonly table: ResourceTable,
    /** etcd progress-notify interval (0 = never). */
    private readonly progressIntervalMs: number,
    /** Compaction interval (0 = only explicit compactions). */
    private readonly compactionIntervalMs: number,
  ) {}

  /** A committed write: arms compaction and progress notifications. */
  onWrite(): void {
    this.writesSinceCompaction = true;
    this.armCompaction();
    this.armProgress();
  }

  /**
   * Idle caches fall behind the global RV when other resources change; etcd's progress notifications (every 5 s)
   * bring them forward. The timer only runs while some cache may be behind.
   */
  armProgress(): void {
    if (this.progressIntervalMs <= 0 || this.progressTimer !== undefined || this.stopped) return;
    this.progressTimer = this.clock.afterFunc(this.progressIntervalMs, () => {
      this.progressTimer = undefined;
      const rev = this.storage.currentRevision;
      for (const c of this.table.allCachers()) if (c.resourceVersion < rev) c.onProgress(rev);
    });
  }

  private armCompaction(): void {
    if (this.compactionIntervalMs <= 0 || this.compactionTimer !== undefined || this.stopped) return;
    this.compactionTimer = this.clock.afterFunc(this.compactionIntervalMs, () => {
      this.compactionTimer = undefined;
      if (this.lastObservedRevision > 0) this.storage.compact(this.lastObservedRevision);
      this.lastObservedRevision = this.storage.currentRevision;
      if (this.writesSinceCompaction) {
        this.writesSinceCompaction = false;
        this.armCompaction();
      }
    });
  }

  /** Stops both timers for good. */
  stop(): void {
    this.stopped = true;
    this.progressTimer?.stop();
    this.compactionTimer?.stop();
  }
}
