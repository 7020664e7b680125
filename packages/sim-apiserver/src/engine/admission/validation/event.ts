import type { FieldError, KubeObject } from "@informer-ts/apimachinery";
import { objectAt, stringAt } from "./common.js";

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
