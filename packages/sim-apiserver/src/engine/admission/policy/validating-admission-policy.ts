import type { CelInput } from "@bufbuild/cel";
import {
  type KubeObject,
  labelSelectorAsSelector,
  type MetaV1LabelSelector,
  newForbidden,
  type StatusError,
} from "@informer-ts/apimachinery";
import type { SimResource } from "../../resources.js";
import type { MvccStorage } from "../../storage/index.js";
import { toCel } from "../cel/validation.js";
import { type MatchingContext, matchesResources } from "./policy-matching.js";
import { kindOf, type PolicyRequest } from "./policy-request.js";
import { schemaOfResource } from "./policy-schema.js";
import { type CompiledPolicy, compilePolicy, type PolicyDecision, validatePolicy } from "./policy-validator.js";

const GROUP = "admissionregistration.k8s.io";
const POLICIES = "validatingadmissionpolicies";
const BINDINGS = "validatingadmissionpolicybindings";

/** The admission configuration resources no policy applies to (`rules.IsExemptAdmissionConfigurationResource`). */
const EXEMPT = new Set([
  "validatingwebhookconfigurations",
  "mutatingwebhookconfigurations",
  POLICIES,
  BINDINGS,
  "mutatingadmissionpolicies",
  "mutatingadmissionpolicybindings",
]);

/** `maxAuditAnnotationValueLength`: a longer published value is cut. */
const MAX_AUDIT_VALUE = 10 * 1024;

/** Audit records kept ({@link ValidatingAdmissionPolicies.audit}); the oldest go first. */
const MAX_AUDIT_RECORDS = 1000;

/** One request's audit annotations from policies (`Audit` actions and `auditAnnotations`). */
export interface PolicyAuditRecord {
  /** The request's resource (plural), namespace, name and operation. */
  readonly resource: string;
  /** `""` for cluster-scoped resources. */
  readonly namespace: string;
  /** The object's name. */
  readonly name: string;
  /** `CREATE`, `UPDATE` or `DELETE`. */
  readonly operation: string;
  /** `validation.policy.admission.k8s.io/validation_failure` and `<policy>/<key>` → value. */
  readonly annotations: Readonly<Record<string, string>>;
}

/** Settings of {@link ValidatingAdmissionPolicies}. */
export interface ValidatingAdmissionPoliciesOptions {
  /** The engine's storage: policies, bindings, params and namespaces are read from it. */
  readonly storage: MvccStorage;
  /** The served resources (the policy resources, the params' kinds, equivalent versions). */
  readonly resources: () => readonly SimResource[];
}

interface Hook {
  readonly policy: CompiledPolicy;
  readonly bindings: readonly KubeObject[];
  readonly paramResource?: SimResource;
  readonly configurationError?: string;
}

interface Denied {
  readonly policy: string;
  readonly binding?: string;
  readonly message: string;
  readonly reason?: string;
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

function specOf(o: KubeObject): Record<string, unknown> {
  return isObject(o.spec) ? o.spec : {};
}

/** `reasonToCode` of the dispatcher: the HTTP code of a denial's reason. */
function reasonToCode(reason: string): number {
  switch (reason) {
    case "Forbidden":
      return 403;
    case "Unauthorized":
      return 401;
    case "RequestEntityTooLarge":
      return 413;
    default:
      return 422;
  }
}

/** `cel.CreateNamespaceObject`: the namespace's metadata (no managed fields, owners), spec and status. */
function namespaceObject(ns: KubeObject | undefined): CelInput {
  if (ns === undefined) return null;
  const { managedFields: _m, ownerReferences: _o, ...metadata } = (ns.metadata ?? {}) as Record<string, unknown>;
  return toCel(
    { apiVersion: "v1", kind: "Namespace", metadata, spec: ns.spec ?? {}, status: ns.status ?? {} },
    undefined,
  );
}

/**
 * The ValidatingAdmissionPolicy admission plugin (apiserver/pkg/admission/plugin/policy/validating: `plugin.go`,
 * `dispatcher.go`; `generic/` for the policy source and `CollectParams`). Policies and bindings are read from the
 * engine's storage — so the in-process and HTTP faces see the same ones — and compiled once per policy generation
 * (the cache is dropped on any storage event of either resource). For a write:
 *
 * - each policy whose `matchConstraints` match ({@link matchesResources}: resource rules, scope, names, selectors,
 *   exclusions, `matchPolicy: Equivalent`) is evaluated for each of its bindings whose `matchResources` match, once
 *   per param (`paramKind` + the binding's `paramRef`: by name, or every object its `selector` selects, in the
 *   `paramRef.namespace` or the request's; none found: `parameterNotFoundAction` `Deny` is a configuration error,
 *   `Allow` skips the binding);
 * - each failed validation acts per the binding's `validationActions`: `Deny` rejects the write with the first denial
 *   — `<resource> "<name>" is forbidden: ValidatingAdmissionPolicy '<p>' with binding '<b>' denied request:
 *   <message>`, reason the validation's `reason` (default `Invalid`, 422; `Forbidden` 403, `Unauthorized` 401,
 *   `RequestEntityTooLarge` 413), the message also as a cause; `Warn` adds `Validation failed for
 *   ValidatingAdmissionPolicy '<p>' with binding '<b>': <message>` to the write's warnings; `Audit` records the
 *   `validation.policy.admission.k8s.io/validation_failure` annotation ({@link audit});
 * - configuration errors (an unknown `paramKind`, a missing param under `Deny`) follow `failurePolicy`: `Fail`
 *   denies with `failed to configure policy: …`/`failed to configure binding: …`, `Ignore` skips.
 *
 * CEL variables: `object`, `oldObject` (null where absent), `request` (kind, resource, subResource, requestKind,
 * requestResource, name, namespace, operation, dryRun, an empty userInfo), `params`, `namespaceObject`, `variables`.
 * Differences: no `authorizer` (an expression using it fails at evaluation); `request.userInfo` is empty and
 * `request.uid`/`options` are absent (the simulator has no authentication); a request matched through an equivalent
 * version is evaluated on the object as written (no conversion); no cost limits on policy expressions; audit
 * annotations are kept in {@link audit} rather than in the audit log.
 */
export class ValidatingAdmissionPolicies {
  private hooks: Hook[] | undefined;
  private readonly compiled = new Map<string, CompiledPolicy>();
  private unsubscribe: (() => void) | undefined;
  /** Audit annotations of the latest requests that produced any (at most 1000). */
  readonly audit: PolicyAuditRecord[] = [];

  constructor(private readonly opts: ValidatingAdmissionPoliciesOptions) {}

  /** Stops following storage. */
  stop(): void {
    this.unsubscribe?.();
    this.unsubscribe = undefined;
    this.hooks = undefined;
  }

  /**
   * Follows storage from the first request on (the engine seeds its system namespaces before anything may
   * subscribe): any event of a policy or a binding drops the hooks, rebuilt from storage on the next request.
   */
  private follow(): void {
    this.unsubscribe ??= this.opts.storage.subscribe({
      onEvent: (ev) => {
        if (ev.resource.group === GROUP && (ev.resource.resource === POLICIES || ev.resource.resource === BINDINGS))
          this.hooks = undefined;
      },
    });
  }

  private resource(group: string, resource: string): SimResource | undefined {
    return this.opts.resources().find((r) => r.group === group && r.resource === resource && r.storedAs === undefined);
  }

  private byKind(apiVersion: string, kind: string): SimResource | undefined {
    const slash = apiVersion.indexOf("/");
    const group = slash === -1 ? "" : apiVersion.slice(0, slash);
    const version = slash === -1 ? apiVersion : apiVersion.slice(slash + 1);
    return this.opts.resources().find((r) => r.group === group && r.version === version && r.kind === kind);
  }

  /** The policies with their bindings, rebuilt after a change (compiled policies reused per uid and generation). */
  private currentHooks(): Hook[] {
    if (this.hooks !== undefined) return this.hooks;
    this.follow();
    const pr = this.resource(GROUP, POLICIES);
    const br = this.resource(GROUP, BINDINGS);
    const hooks: Hook[] = [];
    if (pr !== undefined && br !== undefined) {
      const bindings = new Map<string, KubeObject[]>();
      for (const [, b] of this.opts.storage.snapshot(br)) {
        const name = String(specOf(b).policyName ?? "");
        bindings.set(name, [...(bindings.get(name) ?? []), b]);
      }
      const seen = new Set<string>();
      for (const [, p] of this.opts.storage.snapshot(pr)) {
        const uid = p.metadata?.uid ?? "";
        seen.add(uid);
        let c = this.compiled.get(uid);
        if (c === undefined || c.generation !== (p.metadata?.generation ?? 0)) {
          c = compilePolicy(p as Record<string, unknown>);
          this.compiled.set(uid, c);
        }
        const hook: { -readonly [K in keyof Hook]: Hook[K] } = { policy: c, bindings: bindings.get(c.name) ?? [] };
        if (c.paramKind !== undefined) {
          const r = this.byKind(c.paramKind.apiVersion, c.paramKind.kind);
          if (r === undefined)
            hook.configurationError = `failed to find resource referenced by paramKind: '${c.paramKind.apiVersion}, Kind=${c.paramKind.kind}'`;
          else hook.paramResource = r;
        }
        hooks.push(hook);
      }
      for (const uid of this.compiled.keys()) if (!seen.has(uid)) this.compiled.delete(uid);
    }
    hooks.sort((a, b) => (a.policy.name < b.policy.name ? -1 : a.policy.name > b.policy.name ? 1 : 0));
    this.hooks = hooks;
    return hooks;
  }

  private namespace(name: string): KubeObject | undefined {
    const r = this.resource("", "namespaces");
    return r === undefined || name === "" ? undefined : this.opts.storage.get(r, "", name);
  }

  private matching(): MatchingContext {
    return {
      namespaceLabels: (name) => this.namespace(name)?.metadata?.labels,
      equivalents: (r) => this.opts.resources().filter((o) => o.group === r.group && o.resource === r.resource),
    };
  }

  /**
   * `generic.CollectParams`: the params a binding evaluates with (`[null]` without `paramKind`), or the
   * configuration error.
   */
  private params(hook: Hook, binding: KubeObject, req: PolicyRequest): (KubeObject | null)[] | string {
    const r = hook.paramResource;
    if (hook.policy.paramKind === undefined || r === undefined) return [null];
    const ref = specOf(binding).paramRef;
    if (!isObject(ref)) return `paramKind kind \`${hook.policy.paramKind.kind}\` is defined but paramRef is not`;
    let ns = "";
    if (r.namespaced) {
      ns = typeof ref.namespace === "string" && ref.namespace !== "" ? ref.namespace : req.namespace;
      if (ns === "") return "cannot use namespaced paramRef in policy binding that matches cluster-scoped resources";
    }
    let found: KubeObject[];
    if (typeof ref.name === "string" && ref.name !== "") {
      const o = this.opts.storage.get(r, ns, ref.name);
      found = o === undefined ? [] : [o];
    } else {
      let selector: ReturnType<typeof labelSelectorAsSelector>;
      try {
        selector = labelSelectorAsSelector((ref.selector ?? {}) as MetaV1LabelSelector);
      } catch (err) {
        return err instanceof Error ? err.message : String(err);
      }
      found = this.opts.storage
        .snapshot(r)
        .map(([, o]) => o)
        .filter((o) => (!r.namespaced || o.metadata?.namespace === ns) && selector.matches(o.metadata?.labels ?? {}));
    }
    if (found.length === 0 && ref.parameterNotFoundAction === "Deny")
      return "no params found for policy binding with `Deny` parameterNotFoundAction";
    return found;
  }

  /**
   * Admits or denies one write (see the class comment); throws the denial's StatusError. The admission
   * configuration resources themselves are exempt.
   */
  validate(req: PolicyRequest): void {
    if (req.resource.group === GROUP && EXEMPT.has(req.resource.resource)) return;
    const hooks = this.currentHooks();
    if (hooks.length === 0) return;
    const ctx = this.matching();
    const denied: Denied[] = [];
    const annotations: Record<string, string> = {};
    const configError = (hook: Hook, binding: KubeObject | undefined, err: string) => {
      const fp = hook.policy.failurePolicy;
      if (fp === "Ignore") return;
      const message =
        fp !== "Fail"
          ? `unrecognized failure policy: '${fp}'`
          : binding === undefined
            ? `failed to configure policy: ${err}`
            : `failed to configure binding: ${err}`;
      denied.push({
        policy: hook.policy.name,
        ...(binding !== undefined && { binding: binding.metadata?.name ?? "" }),
        message,
      });
    };
    let activationBase: Record<string, CelInput> | undefined;
    for (const hook of hooks) {
      let match: ReturnType<typeof matchesResources>;
      try {
        match =
          hook.policy.matchConstraints === undefined
            ? { matches: false }
            : matchesResources(hook.policy.matchConstraints, req, ctx);
      } catch {
        continue;
      }
      if (!match.matches) continue;
      if (hook.configurationError !== undefined) {
        configError(hook, undefined, hook.configurationError);
        continue;
      }
      const collected = new Map<string, string[]>();
      for (const binding of hook.bindings) {
        const bspec = specOf(binding);
        let bm: ReturnType<typeof matchesResources>;
        try {
          bm = matchesResources(isObject(bspec.matchResources) ? bspec.matchResources : undefined, req, ctx);
        } catch (err) {
          configError(hook, binding, err instanceof Error ? err.message : String(err));
          continue;
        }
        if (!bm.matches) continue;
        const params = this.params(hook, binding, req);
        if (typeof params === "string") {
          configError(hook, binding, params);
          continue;
        }
        activationBase ??= this.activation(req, match.resource ?? req.resource);
        const bname = binding.metadata?.name ?? "";
        const actions = Array.isArray(bspec.validationActions) ? (bspec.validationActions as string[]) : [];
        for (const param of params) {
          const result = validatePolicy(hook.policy, {
            ...activationBase,
            params: param === null ? null : toCel(param, hook.paramResource && schemaOfResource(hook.paramResource)),
          });
          result.decisions.forEach((d: PolicyDecision, i) => {
            if (d.action !== "deny") return;
            for (const action of actions) {
              if (action === "Deny")
                denied.push({
                  policy: hook.policy.name,
                  binding: bname,
                  message: d.message,
                  ...(d.reason !== undefined && { reason: d.reason }),
                });
              else if (action === "Warn")
                req.warnings?.push(
                  `Validation failed for ValidatingAdmissionPolicy '${hook.policy.name}' with binding '${bname}': ${d.message}`,
                );
              else if (action === "Audit")
                annotations["validation.policy.admission.k8s.io/validation_failure"] = JSON.stringify([
                  {
                    message: d.message,
                    policy: hook.policy.name,
                    binding: bname,
                    expressionIndex: i,
                    validationActions: actions,
                  },
                ]);
            }
          });
          for (const a of result.auditAnnotations) {
            const value = a.value.length > MAX_AUDIT_VALUE ? a.value.slice(0, MAX_AUDIT_VALUE) : a.value;
            const values = collected.get(a.key) ?? [];
            if (!values.includes(value)) collected.set(a.key, [...values, value]);
          }
          for (const message of result.auditAnnotationErrors)
            denied.push({ policy: hook.policy.name, binding: bname, message });
        }
      }
      for (const [key, values] of collected) annotations[`${hook.policy.name}/${key}`] = values.join(", ");
    }
    if (Object.keys(annotations).length > 0) {
      this.audit.push({
        resource: req.resource.resource,
        namespace: req.namespace,
        name: req.name,
        operation: req.operation,
        annotations,
      });
      if (this.audit.length > MAX_AUDIT_RECORDS) this.audit.shift();
    }
    const first = denied[0];
    if (first !== undefined) throw this.denial(req, first);
  }

  private activation(req: PolicyRequest, matched: SimResource): Record<string, CelInput> {
    const schema = schemaOfResource(req.resource);
    const isNamespace = req.resource.group === "" && req.resource.resource === "namespaces";
    const request = {
      kind: kindOf(matched),
      resource: { group: matched.group, version: matched.version, resource: matched.resource },
      subResource: req.subresource,
      requestKind: kindOf(req.resource),
      requestResource: { group: req.resource.group, version: req.resource.version, resource: req.resource.resource },
      requestSubResource: req.subresource,
      name: req.name,
      namespace: req.namespace,
      operation: req.operation,
      userInfo: {},
      dryRun: req.dryRun,
    };
    return {
      object: req.object === undefined ? null : toCel(req.object, schema),
      oldObject: req.oldObject === undefined ? null : toCel(req.oldObject, schema),
      request: toCel(request, undefined),
      namespaceObject: isNamespace ? null : namespaceObject(this.namespace(req.namespace)),
    };
  }

  /** The dispatcher's denial: `admission.NewForbidden` with the decision's reason and code, the message as a cause. */
  private denial(req: PolicyRequest, d: Denied): StatusError {
    const message =
      d.binding === undefined
        ? `ValidatingAdmissionPolicy '${d.policy}' denied request: ${d.message}`
        : `ValidatingAdmissionPolicy '${d.policy}' with binding '${d.binding}' denied request: ${d.message}`;
    const name = req.name !== "" ? req.name : String(req.object?.metadata?.name ?? "");
    const err = newForbidden({ group: req.resource.group, resource: req.resource.resource }, name, message);
    const reason = d.reason ?? "Invalid";
    const status = err.status as { reason?: string; code?: number; details?: { causes?: { message: string }[] } };
    status.reason = reason;
    status.code = reasonToCode(reason);
    status.details = { ...status.details, causes: [...(status.details?.causes ?? []), { message }] };
    return err;
  }
}
