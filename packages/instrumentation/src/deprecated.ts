// The deprecated names of @informer-ts/instrumentation, in one place: each is an alias of the name that replaced it
// and is listed in docs/api-surface.md.
import type { MetricLabels } from "./metrics.js";

/**
 * A metric's label values by label name.
 *
 * @deprecated Renamed {@link MetricLabels}: `Labels` in `@informer-ts/apimachinery` is an object's label set.
 */
export type Labels = MetricLabels;
