import type { Clock, Timer } from "@informer-ts/clock";
import type { Logger } from "@informer-ts/instrumentation";
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
  /** The engine's logger (its `logger` option): where a controller reports what it cannot do. */
  readonly logger?: Logger;
}

/** One write a simulated controller made, as {@link ControllerLoop.onAction} reports it. */
export interface ControllerAction {
  /** `garbage-collector` or `namespace-controller`. */
  readonly controller: string;
  /** One readable line: what was written and why, e.g. `deleted secrets team-a/a-mirror: owner ConfigMap a is gone`. */
  readonly text: string;
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
  private readonly listeners = new Set<(a: ControllerAction) => void>();
  /** The controller's name in its {@link ControllerAction}s. */
  protected abstract readonly actionName: string;

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

  /**
   * Calls `listener` after each write this controller made (in the pass, synchronously); returns the function that
   * removes it. A listener that throws is ignored. For timelines: tests show what the simulator itself did.
   */
  onAction(listener: (a: ControllerAction) => void): () => void {
    this.listeners.add(listener);
    return () => {
      this.listeners.delete(listener);
    };
  }

  /** Reports one write to the {@link onAction} listeners. */
  protected report(text: string): void {
    for (const l of this.listeners) {
      try {
        l({ controller: this.actionName, text });
      } catch {
        // A listener's failure is its own.
      }
    }
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
