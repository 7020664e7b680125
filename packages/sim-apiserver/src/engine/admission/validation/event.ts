import type { FieldError, KubeObject } from "@informer-ts/apimachinery";
import { eventsV1ToCoreEvent } from "../../event-conversion.js";
import { immutable, objectAt, stringAt } from "./common.js";

/**
 * `ValidateEventCreate` of core/v1 Events: an old-style Event (no `eventTime`) must be in its involved object's
 * namespace, a new-style one only needs one when the object's is empty and its own is not default or kube-system
 * (`involvedObject.namespace: Invalid value: "x": does not match event.namespace`); `type` when set is `Normal` or
 * `Warning`. events.k8s.io/v1 Events (`events: true`) further need `reportingController`, `reportingInstance`,
 * `action` and `reason` (`Required value`) and an `eventTime`.
 */
export function validateEvent(ev: KubeObject, eventsGroup: boolean): FieldError[] {
  const errs: FieldError[] = [];
  const ns = stringAt(ev.metadata?.namespace);
  const io = objectAt(
    (ev as { involvedObject?: unknown; regarding?: unknown })[eventsGroup ? "regarding" : "involvedObject"],
  );
  const ioNs = stringAt(io?.namespace);
  const ioField = eventsGroup ? "regarding.namespace" : "involvedObject.namespace";
  // legacyValidateEvent: an Event without eventTime (the old form) must name its involved object's namespace (or
  // none, in "" or "default"); an Event with eventTime only needs a namespace for an involved object in another
  // namespace than default or kube-system — so a new-style Event may report on an object elsewhere.
  const mismatch =
    stringAt((ev as { eventTime?: unknown }).eventTime) === ""
      ? ioNs === ""
        ? ns !== "" && ns !== "default"
        : ns !== ioNs
      : ioNs === "" && ns !== "default" && ns !== "kube-system";
  if (mismatch)
    errs.push({ type: "FieldValueInvalid", field: ioField, badValue: ioNs, detail: "does not match event.namespace" });
  const type = stringAt((ev as { type?: unknown }).type);
  if (type !== "" && type !== "Normal" && type !== "Warning")
    errs.push({ type: "FieldValueInvalid", field: "type", badValue: type, detail: `has invalid value: ${type}` });
  if (eventsGroup) {
    const e = ev as Record<string, unknown>;
    if (stringAt(e.eventTime) === "") errs.push({ type: "FieldValueRequired", field: "eventTime" });
    for (const f of ["reportingController", "reportingInstance", "action", "reason"]) {
      if (stringAt(e[f]) === "") errs.push({ type: "FieldValueRequired", field: f });
    }
  }
  return errs;
}

/** The fields `ValidateEventUpdate` keeps immutable through events.k8s.io, by their internal (core) name. */
const IMMUTABLE_THROUGH_EVENTS_API = [
  "involvedObject",
  "reason",
  "message",
  "source",
  "firstTimestamp",
  "lastTimestamp",
  "count",
  "type",
  "eventTime",
  "action",
  "related",
  "reportingComponent",
  "reportingInstance",
] as const;

/**
 * `ValidateEventUpdate` (`pkg/apis/core/validation/events.go`): the new object passes the legacy checks (namespace
 * agreement, `type`); through core v1 nothing more, so an old-style Event stays updatable. Through events.k8s.io/v1
 * (`eventsGroup`) a changed `series` must have `count` ≥ 2 and a `lastObservedTime`, and every field but `series`
 * and metadata is immutable — named as the internal type names it (`message`, `involvedObject`,
 * `reportingController`), since upstream validates the internal object. Differences: `eventTime` is compared as
 * written (upstream tolerates sub-microsecond changes).
 */
export function validateEventUpdate(ev: KubeObject, old: KubeObject, eventsGroup: boolean): FieldError[] {
  const next = (eventsGroup ? eventsV1ToCoreEvent(ev) : ev) as Record<string, unknown>;
  // legacyValidateEvent of the new object: the creation rules of a new-style Event apply only when it has eventTime.
  const errs =
    eventsGroup && stringAt(next.eventTime) !== "" ? validateEvent(ev, true) : validateEvent(next as KubeObject, false);
  if (!eventsGroup) return errs;
  const prev = eventsV1ToCoreEvent(old) as Record<string, unknown>;
  if (JSON.stringify(next.series) !== JSON.stringify(prev.series)) {
    const series = objectAt(next.series);
    if (series !== undefined) {
      if (typeof series.count !== "number" || series.count < 2)
        errs.push({ type: "FieldValueInvalid", field: "series.count", badValue: "", detail: "should be at least 2" });
      if (stringAt(series.lastObservedTime) === "")
        errs.push({ type: "FieldValueRequired", field: "series.lastObservedTime" });
    }
  }
  for (const f of IMMUTABLE_THROUGH_EVENTS_API) {
    const field = f === "reportingComponent" ? "reportingController" : f;
    errs.push(...immutable(next[f], prev[f], field, typeof next[f] === "string" ? next[f] : ""));
  }
  return errs;
}
