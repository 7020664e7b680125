import type { FieldError, KubeObject } from "@informer-ts/apimachinery";
import { objectAt, stringAt } from "./common.js";

/**
 * `ValidateEventCreate` of core/v1 Events: a namespaced involved object must be in the event's namespace
 * (`involvedObject.namespace: Invalid value: "x": does not match event.namespace`), `type` when set is `Normal` or
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
  if (ioNs !== "" && ns !== "" && ioNs !== ns)
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
