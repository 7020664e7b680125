// The deprecated names of @informer-ts/controller, in one place: each is an alias of what replaced it and is
// listed in docs/api-surface.md.
import { describeValue } from "./reconciler.js";
import type { RecordedEvent } from "./record/events-cache.js";

/**
 * A short, safe description of any value for error messages.
 *
 * @deprecated An internal helper of the reconcile error messages that was exported by mistake; its name shadowed
 * the test runners' `describe`. It will be removed.
 */
export const describe: (value: unknown) => string = describeValue;

/**
 * A core/v1 Event as the event recorder builds, correlates and writes it.
 *
 * @deprecated Renamed {@link RecordedEvent}: `CoreEvent` in `@informer-ts/client` is the typed core/v1 Event of the
 * client's resources.
 */
export type CoreEvent = RecordedEvent;
