import type { Clock, Timer } from "@informer-ts/clock";
import type { RegistryStore } from "../registry/index.js";
import type { SimResource } from "../resources.js";
import type { MvccStorage, StorageEvent } from "../storage/index.js";

/** What the simulated controllers of the engine (garbage collector, namespace controller) work with. */
export interface ControllerDeps {
  readonly storage: MvccStorage;
  readonly registry: RegistryStore;
  readonly clock: Clock;
  /** Every served resource (the controllers' discovery). */
  readonly resources: () => readonly SimResource[];
  /** How long after a relevant change a pass runs (engine clock). */
  readonly delayMs: number;
}

/**
 * The scheduling shared by the simulated controllers: storage events are offered to `relevant`; a relevant one arms
 * a single timer of `delayMs` on the engine's clock, and the pass it runs may write (through the registry), whose
 * events arm the next pass. So a cascade advances one level per `delayMs` of virtual time, and an idle engine (or
 * one whose changes concern no controller) has no pending timer. A pass that throws is retried on the next change.
 */
export abstract class ControllerLoop {
  private timer: Timer | undefined;
  private stopped = false;
  private readonly unsubscribe: () => void;
  /** Passes run so far (tests, diagnostics). */
  passes = 0;

  constructor(protected readonly deps: ControllerDeps) {
    this.unsubscribe = deps.storage.subscribe({
      onEvent: (ev) => {
        if (this.relevant(ev)) this.arm();
      },
    });
  }

  /** Whether a storage event may give this controller work. */
  protected abstract relevant(ev: StorageEvent): boolean;

  /** One pass over the current state; writes go through the registry. */
  protected abstract pass(): void;

  /** Schedules a pass (no-op while one is pending or after {@link stop}). */
  arm(): void {
    if (this.stopped || this.timer !== undefined) return;
    this.timer = this.deps.clock.afterFunc(this.deps.delayMs, () => {
      this.timer = undefined;
      this.passes++;
      try {
        this.pass();
      } catch {
        // A write that lost a race (409/404) is retried by the pass its own event arms.
      }
    });
  }

  /** Whether a pass is scheduled. */
  get pending(): boolean {
    return this.timer !== undefined;
  }

  stop(): void {
    this.stopped = true;
    this.timer?.stop();
    this.timer = undefined;
    this.unsubscribe();
  }
}
