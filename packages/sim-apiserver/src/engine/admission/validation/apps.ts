import { type FieldError, type KubeObject, validateLabels } from "@informer-ts/apimachinery";
import { goStringMap, listAt, nonNegative, notSupported, objectAt, stringAt } from "./common.js";
import { validatePodSpec } from "./pod.js";

/** The label selector's Go `String()` form, as field errors print a selector bad value. */
function selectorString(sel: Record<string, unknown> | undefined): string {
  if (sel === undefined) return "nil";
  const ml = objectAt(sel.matchLabels);
  const labels =
    ml === undefined
      ? ""
      : Object.keys(ml)
          .sort()
          .map((k) => `${k}: ${String(ml[k])},`)
          .join("");
  return `&LabelSelector{MatchLabels:map[string]string{${labels}},MatchExpressions:[]LabelSelectorRequirement{},}`;
}

const OPERATORS = ["In", "NotIn", "Exists", "DoesNotExist"];

/** Whether `labels` satisfy a label selector (`metav1.LabelSelectorAsSelector(...).Matches`). */
export function selectorMatches(sel: Record<string, unknown>, labels: Record<string, unknown>): boolean {
  const ml = objectAt(sel.matchLabels) ?? {};
  for (const [k, v] of Object.entries(ml)) if (labels[k] !== v) return false;
  for (const raw of listAt(sel.matchExpressions)) {
    const e = objectAt(raw) ?? {};
    const key = stringAt(e.key);
    const values = listAt(e.values).map(String);
    const has = key in labels;
    switch (e.operator) {
      case "In":
        if (!has || !values.includes(String(labels[key]))) return false;
        break;
      case "NotIn":
        if (has && values.includes(String(labels[key]))) return false;
        break;
      case "Exists":
        if (!has) return false;
        break;
      case "DoesNotExist":
        if (has) return false;
        break;
      default:
        return false;
    }
  }
  return true;
}

/** `ValidateLabelSelector`: match labels are labels, expressions have a known operator and values as it needs. */
function validateSelector(sel: Record<string, unknown>, path: string): FieldError[] {
  const errs = validateLabels(objectAt(sel.matchLabels) as Record<string, string> | undefined, `${path}.matchLabels`);
  listAt(sel.matchExpressions).forEach((raw, i) => {
    const e = objectAt(raw) ?? {};
    const p = `${path}.matchExpressions[${i}]`;
    const op = stringAt(e.operator);
    const values = listAt(e.values);
    if (!OPERATORS.includes(op)) errs.push(notSupported(op, `${p}.operator`, OPERATORS));
    else if ((op === "In" || op === "NotIn") && values.length === 0)
      errs.push({
        type: "FieldValueRequired",
        field: `${p}.values`,
        detail: "must be specified when `operator` is 'In' or 'NotIn'",
      });
    else if ((op === "Exists" || op === "DoesNotExist") && values.length > 0)
      errs.push({
        type: "FieldValueForbidden",
        field: `${p}.values`,
        detail: "may not be specified when `operator` is 'Exists' or 'DoesNotExist'",
      });
  });
  return errs;
}

/** What differs between the workload kinds' spec validation. */
interface WorkloadRules {
  readonly kind: "Deployment" | "ReplicaSet" | "StatefulSet" | "DaemonSet";
  readonly replicas: boolean;
  /** Volume names the template's mounts may use besides its own volumes (a StatefulSet's claim templates). */
  readonly extraVolumeNames?: readonly string[];
}

/**
 * The selector/template core of `ValidateDeploymentSpec`, `ValidateReplicaSetSpec`, `ValidateStatefulSetSpec` and
 * `ValidateDaemonSetSpec`: a non-empty selector (`spec.selector: Required value`; `empty selector is invalid for
 * deployment`), template labels it selects (`spec.template.metadata.labels: Invalid value:
 * map[string]string{"app":"x"}: `selector` does not match template `labels``), a valid pod template whose
 * `restartPolicy` is `Always`, `replicas` ≥ 0 where the kind has replicas, and `minReadySeconds` ≥ 0.
 */
function validateWorkloadSpec(obj: KubeObject, rules: WorkloadRules): FieldError[] {
  const spec = objectAt(obj.spec) ?? {};
  const errs: FieldError[] = [];
  if (rules.replicas) errs.push(...nonNegative(spec.replicas, "spec.replicas"));
  errs.push(...nonNegative(spec.minReadySeconds, "spec.minReadySeconds"));
  const sel = objectAt(spec.selector);
  const template = objectAt(spec.template) ?? {};
  const tlabels = objectAt(objectAt(template.metadata)?.labels) ?? {};
  if (sel === undefined) errs.push({ type: "FieldValueRequired", field: "spec.selector" });
  else {
    errs.push(...validateSelector(sel, "spec.selector"));
    const empty =
      Object.keys(objectAt(sel.matchLabels) ?? {}).length === 0 && listAt(sel.matchExpressions).length === 0;
    if (empty) {
      errs.push({
        type: "FieldValueInvalid",
        field: "spec.selector",
        printedValue: selectorString(sel),
        detail: `empty selector is invalid for ${rules.kind === "Deployment" ? "deployment" : rules.kind.toLowerCase()}`,
      });
    } else if (!selectorMatches(sel, tlabels)) {
      errs.push({
        type: "FieldValueInvalid",
        field: "spec.template.metadata.labels",
        printedValue: goStringMap(tlabels),
        detail: "`selector` does not match template `labels`",
      });
    }
  }
  errs.push(...validateLabels(tlabels as Record<string, string>, "spec.template.metadata.labels"));
  errs.push(
    ...validatePodSpec(template.spec, "spec.template.spec", {
      restartPolicies: ["Always"],
      ...(rules.extraVolumeNames !== undefined && { extraVolumeNames: rules.extraVolumeNames }),
    }),
  );
  return errs;
}

/**
 * `ValidateDeploymentSpec`: {@link validateWorkloadSpec} plus `strategy.type` (`Recreate`, `RollingUpdate`),
 * `revisionHistoryLimit` and `progressDeadlineSeconds` ≥ 0, and a deadline above `minReadySeconds`.
 */
export function validateDeployment(d: KubeObject): FieldError[] {
  const spec = objectAt(d.spec) ?? {};
  const errs = validateWorkloadSpec(d, { kind: "Deployment", replicas: true });
  const type = objectAt(spec.strategy)?.type;
  if (typeof type === "string" && type !== "Recreate" && type !== "RollingUpdate")
    errs.push(notSupported(type, "spec.strategy.type", ["Recreate", "RollingUpdate"]));
  errs.push(...nonNegative(spec.revisionHistoryLimit, "spec.revisionHistoryLimit"));
  errs.push(...nonNegative(spec.progressDeadlineSeconds, "spec.progressDeadlineSeconds"));
  const pds = spec.progressDeadlineSeconds;
  const mrs = typeof spec.minReadySeconds === "number" ? spec.minReadySeconds : 0;
  if (typeof pds === "number" && pds >= 0 && pds <= mrs) {
    errs.push({
      type: "FieldValueInvalid",
      field: "spec.progressDeadlineSeconds",
      badValue: pds,
      detail: "must be greater than minReadySeconds",
    });
  }
  return errs;
}

/** `ValidateReplicaSetSpec`. */
export function validateReplicaSet(rs: KubeObject): FieldError[] {
  return validateWorkloadSpec(rs, { kind: "ReplicaSet", replicas: true });
}

/** `ValidateDaemonSetSpec`: {@link validateWorkloadSpec} plus `updateStrategy.type` (`OnDelete`, `RollingUpdate`). */
export function validateDaemonSet(ds: KubeObject): FieldError[] {
  const errs = validateWorkloadSpec(ds, { kind: "DaemonSet", replicas: false });
  const type = objectAt(objectAt(ds.spec)?.updateStrategy)?.type;
  if (typeof type === "string" && type !== "OnDelete" && type !== "RollingUpdate")
    errs.push(notSupported(type, "spec.updateStrategy.type", ["OnDelete", "RollingUpdate"]));
  return errs;
}

/** `ValidateStatefulSetSpec`: {@link validateWorkloadSpec} plus `podManagementPolicy` and `updateStrategy.type`. */
export function validateStatefulSet(sts: KubeObject): FieldError[] {
  const spec = objectAt(sts.spec) ?? {};
  const claimNames = listAt(spec.volumeClaimTemplates).map((t) => stringAt(objectAt(objectAt(t)?.metadata)?.name));
  const errs = validateWorkloadSpec(sts, { kind: "StatefulSet", replicas: true, extraVolumeNames: claimNames });
  const pmp = spec.podManagementPolicy;
  if (typeof pmp === "string" && pmp !== "OrderedReady" && pmp !== "Parallel")
    errs.push(notSupported(pmp, "spec.podManagementPolicy", ["OrderedReady", "Parallel"]));
  const type = objectAt(spec.updateStrategy)?.type;
  if (typeof type === "string" && type !== "OnDelete" && type !== "RollingUpdate")
    errs.push(notSupported(type, "spec.updateStrategy.type", ["OnDelete", "RollingUpdate"]));
  errs.push(...nonNegative(spec.revisionHistoryLimit, "spec.revisionHistoryLimit"));
  return errs;
}

/**
 * The apps/v1 update rule of every workload: `spec.selector` is immutable (`spec.selector: Invalid value:
 * &LabelSelector{…}: field is immutable`); a StatefulSet may further change only `replicas`, `ordinals`, `template`,
 * `updateStrategy`, `persistentVolumeClaimRetentionPolicy` and `minReadySeconds` (`spec: Forbidden: updates to
 * statefulset spec for fields other than …`).
 */
export function validateWorkloadUpdate(obj: KubeObject, old: KubeObject, statefulSet: boolean): FieldError[] {
  const spec = objectAt(obj.spec) ?? {};
  const oldSpec = objectAt(old.spec) ?? {};
  const errs: FieldError[] = [];
  if (JSON.stringify(spec.selector ?? null) !== JSON.stringify(oldSpec.selector ?? null)) {
    errs.push({
      type: "FieldValueInvalid",
      field: "spec.selector",
      printedValue: selectorString(objectAt(spec.selector)),
      detail: "field is immutable",
    });
  }
  if (statefulSet) {
    const mutable = [
      "replicas",
      "ordinals",
      "template",
      "updateStrategy",
      "persistentVolumeClaimRetentionPolicy",
      "minReadySeconds",
      "selector",
    ];
    const strip = (s: Record<string, unknown>) =>
      JSON.stringify(
        Object.fromEntries(
          Object.entries(s)
            .filter(([k]) => !mutable.includes(k))
            .sort(([a], [b]) => (a < b ? -1 : 1)),
        ),
      );
    if (strip(spec) !== strip(oldSpec)) {
      errs.push({
        type: "FieldValueForbidden",
        field: "spec",
        detail:
          "updates to statefulset spec for fields other than 'replicas', 'ordinals', 'template', 'updateStrategy', 'persistentVolumeClaimRetentionPolicy' and 'minReadySeconds' are forbidden",
      });
    }
  }
  return errs;
}
