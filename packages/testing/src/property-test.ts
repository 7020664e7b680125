import type { CheckResult, PropertyOptions } from "./check-subject.js";

/** How a test runner registers a test with its own timeout: vitest's and jest's `it`/`test` (name, fn, timeout). */
export type TestRegistrar = (name: string, fn: () => Promise<void>, timeoutMs: number) => unknown;

/** Options of {@link propertyTest} and {@link itProperty}. */
export interface PropertyTestOptions {
  /** The test's own timeout in real ms (default 60 000): give the runner the same one. */
  readonly timeoutMs?: number;
  /**
   * The share of the timeout the search (and shrinking) may use (default 0.6): the rest is for the case running when
   * the budget ends, re-running the counterexample and printing its story. Ignored when the options set `timeLimitMs`.
   */
  readonly budgetShare?: number;
  /** Where the story and budget notes go besides the thrown error (default `console.error`). */
  readonly log?: (text: string) => void;
}

/**
 * A test body running a kit property (`checkController`, `checkInformer`, `checkSubject`) within a real-time budget
 * below the test's timeout — fast-check's `interruptAfterTimeLimit` through `timeLimitMs` — so that a failure's story
 * and replay token are printed even when the search could not finish: the runner's timeout would otherwise kill the
 * test first and lose them (`Test timed out in 5000ms.`). The story goes to `log` and into the thrown error; a property
 * that passed only because the budget stopped it early logs how many cases ran. Works with any runner that takes a
 * promise-returning test function: `test(name, { timeout }, propertyTest(…))` with node's `node:test`.
 */
export function propertyTest<O extends PropertyOptions>(
  check: (options: O) => Promise<CheckResult>,
  options: O,
  test: PropertyTestOptions = {},
): () => Promise<void> {
  const timeoutMs = test.timeoutMs ?? 60_000;
  const share = test.budgetShare ?? 0.6;
  if (!(Number.isFinite(timeoutMs) && timeoutMs > 0)) {
    throw new RangeError(`propertyTest: timeoutMs must be a number > 0, got ${timeoutMs}`);
  }
  if (!(share > 0 && share < 1)) throw new RangeError(`propertyTest: budgetShare must be in (0, 1), got ${share}`);
  const log = test.log ?? ((text: string) => console.error(text));
  const timeLimitMs = options.timeLimitMs ?? Math.floor(timeoutMs * share);
  return async () => {
    const userLog = options.log;
    const result = await check({
      ...options,
      timeLimitMs,
      log: (text: string) => {
        log(text);
        userLog?.(text);
      },
    });
    if (result.interrupted === true) {
      log(
        `${options.property ?? "property"}: ${result.numRuns} of ${options.numRuns ?? "the"} cases ran within the ${timeLimitMs} ms budget (seed ${result.seed}); none failed`,
      );
    }
  };
}

/**
 * Registers a kit property as a test of a vitest-style runner, with the budget of {@link propertyTest}:
 * `itProperty(it, "mirror converges", checkController, options, { timeoutMs: 120_000 })`.
 */
export function itProperty<O extends PropertyOptions>(
  it: TestRegistrar,
  name: string,
  check: (options: O) => Promise<CheckResult>,
  options: O,
  test: PropertyTestOptions = {},
): void {
  it(name, propertyTest(check, options, test), test.timeoutMs ?? 60_000);
}
