import { type FieldError, type KubeObject, newBadRequest, newForbidden } from "@informer-ts/apimachinery";
import { mathRand, type Rand } from "@informer-ts/clock";
import { hpaV1ToV2 } from "../hpa-conversion.js";
import { validateStoredVersions } from "../registry/custom-resource-versions.js";
import type { SimResource } from "../resources.js";
import { decodeBuiltin } from "./builtin-decode.js";
import { validateCustomResourceRules } from "./cel/validation.js";
import {
  defaultCustomResource,
  pruneCustomResource,
  type StructuralSchema,
  validateCustomResource,
} from "./custom-resource-schema.js";
import { admitDefaultIngressClass } from "./default-ingress-class-admission.js";
import {
  defaultMutatingWebhookConfiguration,
  defaultValidatingAdmissionPolicy,
  defaultValidatingAdmissionPolicyBinding,
  defaultValidatingWebhookConfiguration,
} from "./defaults/admissionregistration-defaults.js";
import {
  defaultDaemonSet,
  defaultDeployment,
  defaultReplicaSet,
  defaultStatefulSet,
} from "./defaults/apps-defaults.js";
import { defaultHpaV1, defaultHpaV2 } from "./defaults/autoscaling-defaults.js";
import { defaultCronJob, defaultJob } from "./defaults/batch-defaults.js";
import { defaultPod, defaultTemplate } from "./defaults/pod-defaults.js";
import { defaultService, ServiceIpAllocator } from "./defaults/service-defaults.js";
import {
  type FieldValidationDirective,
  fieldValidationDirective,
  strictDecodingError,
  strictDecodingErrors,
  type WriteOptionsKind,
} from "./field-validation.js";
import { admitLimitRanges, limitRangerApplies, limitRangeViolation } from "./limit-ranger-admission.js";
import { BUILTIN_ROOTS } from "./openapi/builtin-definitions.js";
import type { PolicyRequest } from "./policy/policy-request.js";
import type { ValidatingAdmissionPolicies } from "./policy/validating-admission-policy.js";
import { admitRuntimeClass, RuntimeClassRejection, runtimeClassViolation } from "./runtime-class-admission.js";
import { mountServiceAccountToken } from "./service-account-admission.js";
import {
  validateValidatingAdmissionPolicy,
  validateValidatingAdmissionPolicyBinding,
} from "./validation/admission-policy.js";
import { validateAnnotations } from "./validation/annotations.js";
import {
  validateDaemonSet,
  validateDeployment,
  validateReplicaSet,
  validateStatefulSet,
  validateWorkloadUpdate,
} from "./validation/apps.js";
import { validateHorizontalPodAutoscaler } from "./validation/autoscaling.js";
import { validateCronJob } from "./validation/batch.js";
import { validateCsrConditionsUpdate } from "./validation/certificates.js";
import { objectAt } from "./validation/common.js";
import {
  validateConfigMap,
  validateConfigMapUpdate,
  validateSecret,
  validateSecretUpdate,
} from "./validation/config-map.js";
import { validateEvent, validateEventUpdate } from "./validation/event.js";
import { validateLease } from "./validation/lease.js";
import { validatePodSpec } from "./validation/pod.js";
import { validatePodUpdate } from "./validation/pod-update.js";
import { validateService, validateServiceUpdate } from "./validation/service.js";
import { validateWebhookConfiguration } from "./validation/webhook-configuration.js";

/** What one write tells the admission chain besides the object. */
export interface AdmissionAttributes {
  /** `fieldValidation` of the request as given (absent: the server's default). */
  readonly fieldValidation?: string;
  /** Paths of duplicate fields the face found in the body text (`JSON.parse` keeps only the last). */
  readonly duplicateFields?: readonly string[];
  /** Where the `Warn` directive's warnings go (the HTTP face sends them as `Warning: 299` headers). */
  readonly warnings?: string[];
  /** `"status"` for a `/status` write: decoded, not defaulted, validated only for custom resources. */
  readonly subresource?: string;
  /** A seed or an internal write: fields are dropped silently, no warnings. */
  readonly internal?: boolean;
}

/** Settings of {@link Admission}. */
export interface AdmissionOptions {
  /** Off: writes are stored as given (object metadata is still validated by the registry). Default on. */
  readonly enabled?: boolean;
  /** The directive of a write without `fieldValidation` (`Warn` from v1.25, `Ignore` before). */
  readonly defaultFieldValidation?: FieldValidationDirective;
  /** Whether the `fieldValidation` parameter exists (the `ServerSideFieldValidation` gate, on from v1.25). */
  readonly fieldValidationParameter?: boolean;
  /** `--service-cluster-ip-range` (default `10.96.0.0/12`). */
  readonly serviceClusterIpRange?: string;
  /** Whether a cluster IP is taken (the allocator's view of stored Services). */
  readonly serviceIpInUse?: (ip: string) => boolean;
  /**
   * The stored ServiceAccount `namespace/name`, for the ServiceAccount plugin's token volume on new pods
   * ({@link mountServiceAccountToken}); absent: no pod gets one.
   */
  readonly serviceAccount?: (namespace: string, name: string) => KubeObject | undefined;
  /** Where the token volume's name suffix is drawn from (default `Math.random`). */
  readonly rand?: Rand;
  /**
   * The stored LimitRanges of a namespace, for the LimitRanger plugin (`limit-ranger-admission.ts`); absent: the
   * plugin is off (`--disable-admission-plugins=LimitRanger`).
   */
  readonly limitRanges?: (namespace: string) => readonly KubeObject[];
  /** The stored RuntimeClass of a name, for the RuntimeClass plugin (`runtime-class-admission.ts`); absent: off. */
  readonly runtimeClass?: (name: string) => KubeObject | undefined;
  /** The stored IngressClasses, for the DefaultIngressClass plugin (`default-ingress-class-admission.ts`); absent: off. */
  readonly ingressClasses?: () => Iterable<KubeObject>;
  /** The ValidatingAdmissionPolicy plugin ({@link Admission.admitValidating}); absent: no policy is enforced. */
  readonly validatingAdmissionPolicies?: ValidatingAdmissionPolicies;
}

const ROOT_BY_GVK = new Map<string, string>();
for (const root of BUILTIN_ROOTS) {
  // api.core.v1.Pod → "/v1/Pod"; api.apps.v1.Deployment → "apps/v1/Deployment"; apiextensions… → its group.
  const parts = root.split(".");
  const kind = parts[parts.length - 1]!;
  const version = parts[parts.length - 2]!;
  let group: string;
  if (root.startsWith("apiextensions-apiserver.")) group = "apiextensions.k8s.io";
  else {
    const g = parts[1]!;
    group = g === "core" ? "" : g === "apps" || g === "batch" || g === "autoscaling" ? g : `${g}.k8s.io`;
  }
  ROOT_BY_GVK.set(`${group}/${version}/${kind}`, root);
}

/** The `SetDefaults_*` of the kinds that have them (Services need the allocator: see {@link Admission.default}). */
const DEFAULTERS: Readonly<Record<string, (obj: KubeObject) => void>> = {
  "/pods": defaultPod,
  "/secrets": (obj) => {
    (obj as { type?: unknown }).type ??= "Opaque";
  },
  "/podtemplates": defaultTemplate,
  "/replicationcontrollers": defaultTemplate,
  "batch/jobs": defaultJob,
  "batch/cronjobs": defaultCronJob,
  "apps/deployments": defaultDeployment,
  "apps/statefulsets": defaultStatefulSet,
  "apps/daemonsets": defaultDaemonSet,
  "apps/replicasets": defaultReplicaSet,
  "admissionregistration.k8s.io/validatingadmissionpolicies": defaultValidatingAdmissionPolicy,
  "admissionregistration.k8s.io/validatingadmissionpolicybindings": defaultValidatingAdmissionPolicyBinding,
  "admissionregistration.k8s.io/validatingwebhookconfigurations": defaultValidatingWebhookConfiguration,
  "admissionregistration.k8s.io/mutatingwebhookconfigurations": defaultMutatingWebhookConfiguration,
};

/** The OpenAPI definition of a built-in resource's kind, if the trimmed document has it. */
export function builtinRootOf(r: SimResource): string | undefined {
  return ROOT_BY_GVK.get(`${r.group}/${r.version}/${r.kind}`);
}

function optionsKind(create: boolean, patch: boolean): WriteOptionsKind {
  return patch ? "PatchOptions" : create ? "CreateOptions" : "UpdateOptions";
}

/**
 * The simulator's admission chain (kube-apiserver's decode → defaulting → admission → `Validate` of the kind's
 * strategy, and apiextensions-apiserver's pruning, defaulting and schema validation of custom resources), run by
 * the registry on every create, update and patch of both faces, before the object reaches storage:
 *
 * 1. {@link Admission.decode}: unknown fields of built-ins (against Kubernetes v1.34's OpenAPI: `openapi/`) and of
 *    custom resources (their version's structural schema) are dropped — never stored — and, with duplicate fields,
 *    rejected under `fieldValidation=Strict` (400 `… strict decoding error: unknown field "spec.foo"`), reported as
 *    warnings under `Warn` (the default), dropped silently under `Ignore`; a value of the wrong JSON type in a
 *    built-in is a 400 whatever the directive (`json: cannot unmarshal …`);
 * 2. {@link Admission.default}: the `SetDefaults_*` of Pods, workloads, Services and Secrets, a Service's cluster IP,
 *    a custom resource's schema defaults; then the mutating admission plugins (LimitRanger, ServiceAccount,
 *    RuntimeClass, DefaultIngressClass), whose refusals are 403s;
 * 3. {@link Admission.validate}: the kinds' hand-written rules (pkg/apis/core/validation, pkg/apis/apps/validation)
 *    and a custom resource's schema, as field errors for the registry's 422; when there are none, the validating
 *    plugins (LimitRanger, RuntimeClass), which throw their 403;
 * 4. {@link Admission.admitValidating}: the validating admission plugins (ValidatingAdmissionPolicy, `policy/`) on
 *    the validated object, and on deletes.
 *
 * With `enabled: false` every step is a no-op (the benchmark's baseline; the simulator before admission existed).
 */
export class Admission {
  readonly enabled: boolean;
  private readonly defaultDirective: FieldValidationDirective;
  private readonly parameter: boolean;
  private readonly ips: ServiceIpAllocator;
  private readonly ipInUse: (ip: string) => boolean;
  private readonly serviceAccount: ((namespace: string, name: string) => KubeObject | undefined) | undefined;
  private readonly rand: Rand;
  private readonly limitRanges: AdmissionOptions["limitRanges"];
  private readonly runtimeClass: AdmissionOptions["runtimeClass"];
  private readonly ingressClasses: AdmissionOptions["ingressClasses"];
  private readonly policies: ValidatingAdmissionPolicies | undefined;

  constructor(opts: AdmissionOptions = {}) {
    this.enabled = opts.enabled ?? true;
    this.defaultDirective = opts.defaultFieldValidation ?? "Warn";
    this.parameter = opts.fieldValidationParameter ?? true;
    this.ips = new ServiceIpAllocator(opts.serviceClusterIpRange);
    this.ipInUse = opts.serviceIpInUse ?? (() => false);
    this.serviceAccount = opts.serviceAccount;
    this.rand = opts.rand ?? mathRand;
    this.limitRanges = opts.limitRanges;
    this.runtimeClass = opts.runtimeClass;
    this.ingressClasses = opts.ingressClasses;
    this.policies = opts.validatingAdmissionPolicies;
  }

  /** Step 4 (create, update, delete; not for seeds): throws the StatusError of a policy's denial. */
  admitValidating(req: PolicyRequest): void {
    if (this.enabled) this.policies?.validate(req);
  }

  /** The directive of a write, validating the parameter (422 `fieldValidation: Unsupported value`). */
  directive(a: AdmissionAttributes, create: boolean, patch = false): FieldValidationDirective {
    if (a.internal === true || !this.parameter) return this.parameter ? "Ignore" : this.defaultDirective;
    return fieldValidationDirective(a.fieldValidation, optionsKind(create, patch), this.defaultDirective);
  }

  /**
   * Step 1 on `obj` (the registry's own copy, changed in place): drops unknown fields and applies the directive;
   * throws the 400 of a strict decoding or type error.
   */
  decode(r: SimResource, obj: KubeObject, a: AdmissionAttributes, create: boolean, patch = false): void {
    if (!this.enabled) return;
    const directive = this.directive(a, create, patch);
    let unknown: readonly string[] = [];
    if (r.custom === true) {
      unknown = pruneCustomResource(obj as Record<string, unknown>, schemaOf(r));
    } else {
      const root = builtinRootOf(r);
      if (root === undefined) return;
      const res = decodeBuiltin(root, obj as Record<string, unknown>);
      if (res.typeError !== undefined) {
        throw newBadRequest(
          `${r.kind} in version ${JSON.stringify(r.version)} cannot be handled as a ${r.kind}: ${res.typeError}`,
        );
      }
      unknown = res.unknownFields;
    }
    const problems = strictDecodingErrors(unknown, a.duplicateFields ?? []);
    if (problems.length === 0 || directive === "Ignore") return;
    if (directive === "Strict") throw strictDecodingError(r.kind, r.version, problems);
    a.warnings?.push(...problems);
  }

  /** Step 2 on `obj` in place (`old`: the stored object of an update). */
  default(r: SimResource, obj: KubeObject, old: KubeObject | undefined, a: AdmissionAttributes): void {
    if (!this.enabled || (a.subresource ?? "") === "status") return;
    if (r.custom === true) {
      defaultCustomResource(obj, schemaOf(r));
      return;
    }
    const key = `${r.group}/${r.resource}`;
    if (key === "/services") defaultService(obj, () => this.ips.allocate(this.ipInUse), old);
    else if (key === "autoscaling/horizontalpodautoscalers") (r.version === "v1" ? defaultHpaV1 : defaultHpaV2)(obj);
    else DEFAULTERS[key]?.(obj);
    if ((a.subresource ?? "") !== "" || a.internal === true) return;
    // The mutating admission plugins, in kube-apiserver's order (LimitRanger, ServiceAccount, …, RuntimeClass,
    // DefaultIngressClass); a refusal is the 403 of `admission.NewForbidden`.
    if (this.limitRanges !== undefined && r.group === "" && limitRangerApplies(r.resource, old === undefined)) {
      if (r.resource === "pods") admitLimitRanges(this.limitRanges(obj.metadata?.namespace ?? ""), obj);
    }
    if (key === "/pods" && old === undefined && this.serviceAccount !== undefined)
      mountServiceAccountToken(obj, this.serviceAccount, this.rand);
    if (key === "/pods" && old === undefined && this.runtimeClass !== undefined) {
      try {
        admitRuntimeClass(obj, this.runtimeClass);
      } catch (err) {
        if (err instanceof RuntimeClassRejection) throw forbidden(r, obj, err.message);
        throw err;
      }
    }
    if (key === "networking.k8s.io/ingresses" && old === undefined && this.ingressClasses !== undefined)
      admitDefaultIngressClass(obj, this.ingressClasses);
  }

  /**
   * The validating admission plugins after the kind's own validation passed (LimitRanger, RuntimeClass): throws the
   * 403 of the first that refuses `obj`.
   */
  private admissionValidate(
    r: SimResource,
    obj: KubeObject,
    old: KubeObject | undefined,
    a: AdmissionAttributes,
  ): void {
    if ((a.subresource ?? "") !== "" || a.internal === true || r.group !== "") return;
    if (this.limitRanges !== undefined && limitRangerApplies(r.resource, old === undefined)) {
      const why = limitRangeViolation(this.limitRanges(obj.metadata?.namespace ?? ""), r.resource, obj);
      if (why !== undefined) throw forbidden(r, obj, why);
    }
    if (r.resource === "pods" && old === undefined && this.runtimeClass !== undefined) {
      const why = runtimeClassViolation(obj, this.runtimeClass);
      if (why !== undefined) throw forbidden(r, obj, why);
    }
  }

  /**
   * Step 3: the field errors of `obj` (`old`: the stored object of an update), beyond object metadata's names; throws
   * the 403 of a validating admission plugin when the kind's own rules pass.
   */
  validate(r: SimResource, obj: KubeObject, old: KubeObject | undefined, a: AdmissionAttributes): FieldError[] {
    if (!this.enabled) return [];
    const errs = validateAnnotations(obj.metadata?.annotations);
    if (r.custom === true) {
      errs.push(...validateCustomResource(obj, schemaOf(r)));
      // CEL rules run on an object that fits its schema (apiextensions skips them after schema errors).
      if (errs.length === 0) errs.push(...validateCustomResourceRules(obj, schemaOf(r), old, a.warnings));
      return errs;
    }
    if (old !== undefined && r.group === "certificates.k8s.io" && r.resource === "certificatesigningrequests")
      errs.push(...validateCsrConditionsUpdate(obj, old, a.subresource ?? ""));
    // A definition's status.storedVersions, on every update (main and /status writes): see validateStoredVersions.
    if (r.group === "apiextensions.k8s.io" && r.resource === "customresourcedefinitions" && old !== undefined)
      errs.push(...validateStoredVersions(obj));
    if ((a.subresource ?? "") === "status") return errs;
    this.validateKind(r, obj, old, errs);
    if (errs.length === 0) this.admissionValidate(r, obj, old, a);
    return errs;
  }

  /** The kind's hand-written validation rules, appended to `errs`. */
  private validateKind(r: SimResource, obj: KubeObject, old: KubeObject | undefined, errs: FieldError[]): void {
    switch (`${r.group}/${r.resource}`) {
      case "/configmaps":
        errs.push(...(old === undefined ? validateConfigMap(obj) : validateConfigMapUpdate(obj, old)));
        break;
      case "/secrets":
        errs.push(...(old === undefined ? validateSecret(obj) : validateSecretUpdate(obj, old)));
        break;
      case "/pods":
        errs.push(...validatePodSpec(obj.spec, "spec"));
        if (old !== undefined) errs.push(...validatePodUpdate(obj.spec, old.spec));
        break;
      case "/services":
        errs.push(...(old === undefined ? validateService(obj) : validateServiceUpdate(obj, old)));
        break;
      case "/events":
        errs.push(...(old === undefined ? validateEvent(obj, false) : validateEventUpdate(obj, old, false)));
        break;
      case "events.k8s.io/events":
        errs.push(...(old === undefined ? validateEvent(obj, true) : validateEventUpdate(obj, old, true)));
        break;
      case "autoscaling/horizontalpodautoscalers":
        // Upstream validates the internal (v2-shaped) object: a v1 write's errors name v2's paths too.
        errs.push(...validateHorizontalPodAutoscaler(r.version === "v1" ? hpaV1ToV2(obj) : obj));
        break;
      case "admissionregistration.k8s.io/validatingadmissionpolicies":
        errs.push(...validateValidatingAdmissionPolicy(obj));
        break;
      case "admissionregistration.k8s.io/validatingadmissionpolicybindings":
        errs.push(...validateValidatingAdmissionPolicyBinding(obj));
        break;
      case "admissionregistration.k8s.io/validatingwebhookconfigurations":
        errs.push(...validateWebhookConfiguration(obj, false));
        break;
      case "admissionregistration.k8s.io/mutatingwebhookconfigurations":
        errs.push(...validateWebhookConfiguration(obj, true));
        break;
      case "coordination.k8s.io/leases":
        errs.push(...validateLease(obj));
        break;
      case "apps/deployments":
        errs.push(...validateDeployment(obj));
        if (old !== undefined) errs.push(...validateWorkloadUpdate(obj, old, false));
        break;
      case "apps/replicasets":
        errs.push(...validateReplicaSet(obj));
        if (old !== undefined) errs.push(...validateWorkloadUpdate(obj, old, false));
        break;
      case "apps/daemonsets":
        errs.push(...validateDaemonSet(obj));
        if (old !== undefined) errs.push(...validateWorkloadUpdate(obj, old, false));
        break;
      case "apps/statefulsets":
        errs.push(...validateStatefulSet(obj));
        if (old !== undefined) errs.push(...validateWorkloadUpdate(obj, old, true));
        break;
      case "batch/cronjobs":
        errs.push(...validateCronJob(obj));
        break;
      case "batch/jobs": {
        const tpl = objectAt(objectAt(obj.spec)?.template);
        errs.push(...validatePodSpec(tpl?.spec, "spec.template.spec", { restartPolicies: ["OnFailure", "Never"] }));
        break;
      }
    }
  }
}

/**
 * `admission.NewForbidden`: 403 `pods "name" is forbidden: <reason>`, the object named by its name, else its
 * `generateName` (not drawn yet while mutating), else `Unknown`.
 */
function forbidden(r: SimResource, obj: KubeObject, reason: string): Error {
  const name = obj.metadata?.name || obj.metadata?.generateName || "Unknown";
  return newForbidden({ group: r.group, resource: r.resource }, name, reason);
}

/** The structural schema a custom resource's served version declares (`openAPIV3Schema`), if any. */
function schemaOf(r: SimResource): StructuralSchema | undefined {
  return r.openAPIV3Schema as StructuralSchema | undefined;
}
