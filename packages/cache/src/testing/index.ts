// Public API of @informer-ts/cache/testing (client-go tools/cache/testing): the test doubles a user's tests
// drive an informer or a reflector with, named re-exports only.

export {
  FakeControllerSource,
  type FakeControllerSourceOptions,
  FakeWatch,
  type FakeWatchListSupport,
} from "./fake-controller-source.js";
export { type RecordedCall, RecordingStore } from "./recording-store.js";
export { runUntilSettled } from "./run-until-settled.js";
export { type RunHandle, startRun } from "./start-run.js";
