import { createRequire } from "node:module";
import { afterEach, beforeEach } from "vitest";

// RxJS reports an error nobody handles (a subscriber that throws, an error without an error callback) by re-throwing
// it from a timer: in a real process that is an `uncaughtException`, which the project promises never happens. This
// setup makes the report deterministic: RxJS's timeout provider runs the report at once, and the report lands in a
// list that fails the test after it ran. So every test in the repository checks that nothing escapes through RxJS,
// without real-time waits ("give the timer a chance") in the tests themselves.
//
// `rxjs` is loaded the way the packages load it under Node (the CommonJS build, through the "node" export
// condition), so this is the same module instance they use.
const requireFromPackages = createRequire(new URL("../../packages/instrumentation/package.json", import.meta.url));
const { config } = requireFromPackages("rxjs") as { config: { onUnhandledError: ((err: unknown) => void) | null } };
const { timeoutProvider } = requireFromPackages("rxjs/internal/scheduler/timeoutProvider") as {
  timeoutProvider: { delegate: unknown };
};

let escaped: unknown[] = [];

/**
 * The errors that reached RxJS's unhandled-error path since the test began, emptying the list (so a test that
 * provokes such an error on purpose can check it and still pass).
 */
export function takeEscapedRxjsErrors(): unknown[] {
  const taken = escaped;
  escaped = [];
  return taken;
}

beforeEach(() => {
  escaped = [];
  config.onUnhandledError = (err: unknown) => escaped.push(err);
  timeoutProvider.delegate = {
    setTimeout: (handler: () => void) => {
      handler();
      return 0;
    },
    clearTimeout: () => {},
  };
});

afterEach(() => {
  config.onUnhandledError = null;
  timeoutProvider.delegate = undefined;
  if (escaped.length > 0) {
    const first = escaped[0];
    throw new Error(
      `${escaped.length} error(s) escaped to RxJS's unhandled-error path (a host process would crash); the first: ` +
        (first instanceof Error ? (first.stack ?? first.message) : String(first)),
    );
  }
});
