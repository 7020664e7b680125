import type { KubeObject } from "@informer-ts/apimachinery";

/**
 * The conversion between `events.k8s.io/v1` Events and core `v1` Events, which kube-apiserver stores in one etcd
 * prefix (`/registry/events`, storage version core `v1`): the events.k8s.io REST is the core event store with another
 * codec (`pkg/registry/events/rest/storage_events.go`). Follows `pkg/apis/events/v1/conversion.go`
 * (`Convert_v1_Event_To_core_Event` / `Convert_core_Event_To_v1_Event`): `regarding` ↔ `involvedObject`, `note` ↔
 * `message`, `reportingController` ↔ `reportingComponent`, `deprecatedSource` ↔ `source`,
 * `deprecatedFirstTimestamp`/`deprecatedLastTimestamp`/`deprecatedCount` ↔ `firstTimestamp`/`lastTimestamp`/`count`;
 * `eventTime`, `series`, `reportingInstance`, `action`, `reason`, `related`, `type` and `metadata` carry over.
 *
 * Fields come out in the Go struct's order (`TypeMeta`, then the type's fields), as upstream's encoder writes them.
 * A field of the other version's spelling in the input (`message` in an events.k8s.io Event) has no place in the
 * target type and is dropped, as Go's decoder would never have read it. Differences: a field the input omits stays
 * absent (Go writes the zero value of the non-pointer structs, e.g. `"involvedObject": {}`); `managedFields` keep the
 * field paths of the version that wrote them.
 */

/** Core name → events.k8s.io name. */
const RENAMED: ReadonlyArray<readonly [core: string, events: string]> = [
  ["involvedObject", "regarding"],
  ["message", "note"],
  ["reportingComponent", "reportingController"],
  ["source", "deprecatedSource"],
  ["firstTimestamp", "deprecatedFirstTimestamp"],
  ["lastTimestamp", "deprecatedLastTimestamp"],
  ["count", "deprecatedCount"],
];

/** `k8s.io/api/core/v1` Event's JSON fields in struct order. */
const CORE_ORDER = [
  "metadata",
  "involvedObject",
  "reason",
  "message",
  "source",
  "firstTimestamp",
  "lastTimestamp",
  "count",
  "type",
  "eventTime",
  "series",
  "action",
  "related",
  "reportingComponent",
  "reportingInstance",
] as const;

/** `k8s.io/api/events/v1` Event's JSON fields in struct order. */
const EVENTS_ORDER = [
  "metadata",
  "eventTime",
  "series",
  "reportingController",
  "reportingInstance",
  "action",
  "reason",
  "regarding",
  "related",
  "note",
  "type",
  "deprecatedSource",
  "deprecatedFirstTimestamp",
  "deprecatedLastTimestamp",
  "deprecatedCount",
] as const;

const CORE_TO_EVENTS = new Map(RENAMED);
const EVENTS_TO_CORE = new Map(RENAMED.map(([core, events]) => [events, core] as const));

/** One direction: rename, drop the other spelling, order as the target struct. */
function convert(
  input: KubeObject,
  apiVersion: string,
  rename: ReadonlyMap<string, string>,
  foreign: ReadonlyMap<string, string>,
  order: readonly string[],
): KubeObject {
  const fields = new Map<string, unknown>();
  for (const [key, value] of Object.entries(input)) {
    if (key === "apiVersion" || key === "kind") continue;
    if (foreign.has(key)) continue;
    fields.set(rename.get(key) ?? key, value);
  }
  const out: Record<string, unknown> = { kind: "Event", apiVersion };
  for (const key of order) if (fields.has(key)) out[key] = fields.get(key);
  for (const [key, value] of fields) if (!(key in out)) out[key] = value;
  return out as KubeObject;
}

/** `Convert_core_Event_To_v1_Event` (via the internal type): a stored core Event as `events.k8s.io/v1` serves it. */
export function coreEventToEventsV1(core: KubeObject): KubeObject {
  return convert(core, "events.k8s.io/v1", CORE_TO_EVENTS, EVENTS_TO_CORE, EVENTS_ORDER);
}

/** `Convert_v1_Event_To_core_Event`: an `events.k8s.io/v1` Event as the core `v1` Event storage keeps it. */
export function eventsV1ToCoreEvent(events: KubeObject): KubeObject {
  return convert(events, "v1", EVENTS_TO_CORE, CORE_TO_EVENTS, CORE_ORDER);
}
