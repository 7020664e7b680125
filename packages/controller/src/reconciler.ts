import type { Logger } from "@informer-ts/instrumentation";
import type { Request } from "./request.js";

/**
 * What a reconcile asks for next (controller-runtime's `reconcile.Result`).
 *
 * - `{}` / `undefined`: done; the key's backoff is forgotten.
 * - `requeueAfter: ms` (> 0): forget the backoff and reconcile again after `ms` milliseconds.
 * - `requeue: true`: reconcile again after the rate limiter's delay (as an error would, but not counted as one).
 *
 * `requeueAfter` wins over `requeue`. A negative, `NaN` or infinite `requeueAfter` is a contract violation: it is
 * treated as a reconcile error naming the value (rate-limited requeue, error metrics).
 */
export interface Result {
  readonly requeue?: boolean;
  readonly requeueAfter?: number;
}

/** What a reconcile receives beside its {@link Request}. */
export interface ReconcileContext {
  /**
   * Aborted when the reconcile should stop: its per-reconcile timeout elapsed (reason a `ReconcileTimeoutError`) or
   * the controller shut down and the drain deadline passed. Pass it to every request the reconcile makes.
   */
  readonly signal: AbortSignal;
  /** The controller's name (the `controller` label of its metrics). */
  readonly controller: string;
  /** How many times this key was requeued by the rate limiter since it last succeeded (`numRequeues`). */
  readonly retries: number;
  /** A unique id of this reconcile (controller-runtime's `reconcileID`), on every line of `log`. */
  readonly reconcileID: string;
  /**
   * A logger carrying `controller`, `controllerGroup`, `controllerKind`, `namespace`, `name` and `reconcileID`
   * (controller-runtime's `log.FromContext(ctx)`): log through it and the lines say which reconcile wrote them.
   */
  readonly log: Logger;
}

/**
 * A reconcile function: makes the world match the desired state of the object named by `request`, reading it from
 * the cache (it may be gone). Throwing or rejecting requeues the key with the rate limiter's backoff; so does a
 * thrown non-`Error` value (wrapped into an `Error` that names it). A {@link TerminalError} is not requeued.
 * Reconciles of one key never run concurrently.
 */
export type Reconciler = (request: Request, ctx: ReconcileContext) => ReconcileReturn | Promise<ReconcileReturn>;

/** What a reconcile may return: a {@link Result}, or nothing (a reconcile written as `async () => {}` returns `void`). */
// biome-ignore lint/suspicious/noConfusingVoidType: a reconcile that returns nothing is typed `void`, not `undefined`
export type ReconcileReturn = Result | undefined | void;

/**
 * An error that retrying cannot fix (controller-runtime's `reconcile.TerminalError`): it is counted in
 * `controller_runtime_reconcile_errors_total` and `controller_runtime_terminal_reconcile_errors_total`, and the key is
 * **not** requeued (its backoff is forgotten). The next change to the object enqueues it again.
 */
export class TerminalError extends Error {
  override readonly name = "TerminalError";
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
  }
}

/** Whether `err` or something in its `cause` chain is a {@link TerminalError} (`errors.Is(err, TerminalError(nil))`). */
export function isTerminalError(err: unknown): boolean {
  for (let e = err, depth = 0; e !== undefined && e !== null && depth < 32; depth++) {
    if (e instanceof TerminalError) return true;
    e = (e as { cause?: unknown }).cause;
  }
  return false;
}

/** The reason a reconcile's signal carries when its per-reconcile timeout elapsed. */
export class ReconcileTimeoutError extends Error {
  override readonly name = "ReconcileTimeoutError";
  constructor(
    readonly key: string,
    readonly timeoutMs: number,
  ) {
    super(`reconcile of ${key} did not finish within ${timeoutMs} ms`);
  }
}

/**
 * A reconcile that threw something other than an `Error` (`throw "boom"`, `Promise.reject(42)`); the value is kept as
 * `cause`. controller-runtime's counterpart is a recovered panic.
 */
export class NonErrorThrownError extends Error {
  override readonly name = "NonErrorThrownError";
  constructor(key: string, value: unknown) {
    super(`reconcile of ${key} threw a non-Error value: ${describeValue(value)}`, { cause: value });
  }
}

/** A reconcile that returned a result outside the {@link Result} contract (negative or non-finite `requeueAfter`…). */
export class InvalidResultError extends Error {
  override readonly name = "InvalidResultError";
}

/** Checks a reconcile's return value; an `InvalidResultError` names what is wrong. */
export function validateResult(key: string, result: unknown): Result {
  if (result === undefined || result === null) return {};
  if (typeof result !== "object") {
    throw new InvalidResultError(`reconcile of ${key} returned ${describeValue(result)}, not a Result object`);
  }
  const r = result as Result;
  if (r.requeueAfter !== undefined) {
    if (typeof r.requeueAfter !== "number" || !Number.isFinite(r.requeueAfter) || r.requeueAfter < 0) {
      throw new InvalidResultError(
        `reconcile of ${key} returned requeueAfter ${describeValue(r.requeueAfter)}: it must be a finite number of milliseconds ≥ 0`,
      );
    }
  }
  if (r.requeue !== undefined && typeof r.requeue !== "boolean") {
    throw new InvalidResultError(
      `reconcile of ${key} returned requeue ${describeValue(r.requeue)}: it must be a boolean`,
    );
  }
  return r;
}

/** A short, safe description of any value for error messages (internal; `describe` is its deprecated alias). */
export function describeValue(value: unknown): string {
  if (typeof value === "string") return JSON.stringify(value.length > 200 ? `${value.slice(0, 200)}…` : value);
  if (typeof value === "number" || typeof value === "boolean" || typeof value === "bigint") return String(value);
  if (value === undefined) return "undefined";
  if (value === null) return "null";
  if (typeof value === "function") return "a function";
  if (typeof value === "symbol") return value.toString();
  try {
    const s = JSON.stringify(value);
    return s === undefined ? Object.prototype.toString.call(value) : s.length > 200 ? `${s.slice(0, 200)}…` : s;
  } catch {
    return Object.prototype.toString.call(value);
  }
}
