import { newServiceUnavailable } from "@informer-ts/apimachinery";
import type { Clock, Timer } from "@informer-ts/clock";
import { groupResourceString, type SimResource } from "../resources.js";
import { UnknownResourceError } from "../unknown-resource-error.js";

/** Engine-level latency rule: requests matching it take `ms` longer (on the engine's clock). */
export interface LatencyRule {
  readonly ms: number;
  readonly verbs?: readonly string[];
  /** Only requests of this resource: its plural (`deployments`) or with its group (`deployments.apps`). */
  readonly resource?: string;
}

interface PendingWait {
  readonly timer: Timer;
  readonly reject: (err: unknown) => void;
}

/**
 * The latency fault: rules adding time to matching requests, and the waits they cause. A wait ends early when the
 * request's signal aborts (the request rejects with the signal's reason) or the engine stops (503 `the apiserver is
 * shutting down`), so no timer outlives a cancelled request or a stopped engine.
 */
export class RequestLatency {
  private rules: LatencyRule[] = [];
  private readonly pending = new Set<PendingWait>();
  private stopped = false;

  constructor(
    private readonly clock: Clock,
    /** Whether a rule's `resource` names a served resource (by `resource` or `resource.group`). */
    private readonly isServed: (resource: string) => boolean = () => true,
  ) {}

  /**
   * Adds a rule; returns a function that removes it. Throws naming the value when `ms` is not a number ≥ 0, and
   * {@link UnknownResourceError} when `resource` names no served resource (a rule that could never match).
   */
  add(rule: LatencyRule): () => void {
    if (!(rule.ms >= 0)) throw new Error(`latency: ms must be ≥ 0, got ${rule.ms}`);
    if (rule.resource !== undefined && !this.isServed(rule.resource)) throw new UnknownResourceError(rule.resource);
    this.rules.push(rule);
    return () => {
      this.rules = this.rules.filter((r) => r !== rule);
    };
  }

  /** The total latency the rules add to a request of `verb` on `r`. */
  msFor(verb: string, r: SimResource): number {
    let ms = 0;
    for (const rule of this.rules) {
      if (rule.verbs !== undefined && !rule.verbs.includes(verb)) continue;
      if (rule.resource !== undefined && rule.resource !== r.resource && rule.resource !== groupResourceString(r)) {
        continue;
      }
      ms += rule.ms;
    }
    return ms;
  }

  /**
   * Waits the rules' latency for a request. Resolves at once when no rule matches (the signal is then not read);
   * rejects with the signal's reason when it aborts first, and with 503 when the engine stops first (or had stopped).
   */
  wait(verb: string, r: SimResource, signal: () => AbortSignal | undefined): Promise<void> {
    return this.sleep(this.msFor(verb, r), signal);
  }

  /**
   * Waits `ms` of the clock for a request (the cost model's phases use it too): resolves at once for 0 (the signal is
   * then not read); rejects with the signal's reason when it aborts first, and with 503 when the engine stops first.
   */
  sleep(ms: number, signal: () => AbortSignal | undefined): Promise<void> {
    if (!(ms > 0)) return Promise.resolve();
    if (this.stopped) return Promise.reject(shuttingDown());
    const s = signal();
    if (s?.aborted === true) return Promise.reject(s.reason);
    return new Promise<void>((resolve, reject) => {
      const onAbort = () => {
        wait.timer.stop();
        this.pending.delete(wait);
        reject(s?.reason);
      };
      const wait: PendingWait = {
        timer: this.clock.afterFunc(ms, () => {
          this.pending.delete(wait);
          s?.removeEventListener("abort", onAbort);
          resolve();
        }),
        reject: (err) => {
          s?.removeEventListener("abort", onAbort);
          reject(err);
        },
      };
      this.pending.add(wait);
      s?.addEventListener("abort", onAbort, { once: true });
    });
  }

  /** Ends every pending wait with 503 and refuses new ones. */
  stop(): void {
    this.stopped = true;
    for (const w of this.pending) {
      w.timer.stop();
      w.reject(shuttingDown());
    }
    this.pending.clear();
  }
}

function shuttingDown() {
  return newServiceUnavailable("the apiserver is shutting down");
}
