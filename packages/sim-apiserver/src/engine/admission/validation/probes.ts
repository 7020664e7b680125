import type { FieldError } from "@informer-ts/apimachinery";
import { nonNegative, objectAt } from "./common.js";

/** `core.ProbeHandler`'s members: a probe has exactly one. */
const HANDLERS = ["exec", "httpGet", "tcpSocket", "grpc"] as const;

/**
 * `validateProbe` + `validateHandler` (`pkg/apis/core/validation/validation.go`) for one of a container's probes at
 * `path` (`spec.containers[0].livenessProbe`): exactly one handler (`Required value: must specify a handler type`;
 * each one beyond the first `Forbidden: may not specify more than 1 handler type`), the second counts ≥ 0
 * (`initialDelaySeconds`, `timeoutSeconds`, `periodSeconds`, `successThreshold`, `failureThreshold`), a
 * `terminationGracePeriodSeconds` > 0 when set, and for liveness and startup probes `successThreshold` 1
 * (`Invalid value: 2: must be 1`). Differences: the handlers' own fields (ports, paths) are not validated.
 */
export function validateProbe(value: unknown, path: string, successMustBeOne: boolean): FieldError[] {
  const probe = objectAt(value);
  if (probe === undefined) return [];
  const errs: FieldError[] = [];
  const handlers = HANDLERS.filter((h) => probe[h] !== undefined && probe[h] !== null);
  if (handlers.length === 0)
    errs.push({ type: "FieldValueRequired", field: path, detail: "must specify a handler type" });
  for (const extra of handlers.slice(1))
    errs.push({
      type: "FieldValueForbidden",
      field: `${path}.${extra}`,
      detail: "may not specify more than 1 handler type",
    });
  for (const f of ["initialDelaySeconds", "timeoutSeconds", "periodSeconds", "successThreshold", "failureThreshold"])
    errs.push(...nonNegative(probe[f], `${path}.${f}`));
  const success = probe.successThreshold;
  if (successMustBeOne && typeof success === "number" && success !== 1)
    errs.push({ type: "FieldValueInvalid", field: `${path}.successThreshold`, badValue: success, detail: "must be 1" });
  const grace = probe.terminationGracePeriodSeconds;
  if (typeof grace === "number" && grace <= 0)
    errs.push({
      type: "FieldValueInvalid",
      field: `${path}.terminationGracePeriodSeconds`,
      badValue: grace,
      detail: "must be greater than 0",
    });
  return errs;
}

/** The three probes of a container at `path` (`spec.containers[0]`). */
export function validateContainerProbes(c: Record<string, unknown>, path: string): FieldError[] {
  return [
    ...validateProbe(c.livenessProbe, `${path}.livenessProbe`, true),
    ...validateProbe(c.readinessProbe, `${path}.readinessProbe`, false),
    ...validateProbe(c.startupProbe, `${path}.startupProbe`, true),
  ];
}
