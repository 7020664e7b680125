import type { KubeObject } from "@informer-ts/apimachinery";

type Obj = Record<string, unknown>;

function isObj(v: unknown): v is Obj {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

/** `SetDefaults_Container`'s pull policy: `Always` for `:latest` or no tag (digests excepted), else `IfNotPresent`. */
export function defaultPullPolicy(image: string): string {
  if (image.includes("@")) return "IfNotPresent";
  const last = image.slice(image.lastIndexOf("/") + 1);
  const tag = last.includes(":") ? last.slice(last.lastIndexOf(":") + 1) : "";
  return tag === "" || tag === "latest" ? "Always" : "IfNotPresent";
}

function defaultContainers(list: unknown): void {
  if (!Array.isArray(list)) return;
  for (const c of list) {
    if (!isObj(c)) continue;
    c.terminationMessagePath ??= "/dev/termination-log";
    c.terminationMessagePolicy ??= "File";
    if (typeof c.image === "string") c.imagePullPolicy ??= defaultPullPolicy(c.image);
    c.resources ??= {};
    if (Array.isArray(c.ports)) for (const p of c.ports) if (isObj(p)) p.protocol ??= "TCP";
  }
}

/**
 * `SetDefaults_PodSpec` and `SetDefaults_Container` of core/v1 (pkg/apis/core/v1/defaults.go), in place: `dnsPolicy:
 * ClusterFirst`, `restartPolicy: Always` (`restartPolicy` overrides the default, e.g. a Job's template has none),
 * `terminationGracePeriodSeconds: 30`, `securityContext: {}`, `schedulerName: default-scheduler`,
 * `enableServiceLinks: true`; each container `terminationMessagePath: /dev/termination-log`,
 * `terminationMessagePolicy: File`, an `imagePullPolicy` from its tag, `resources: {}`, ports `protocol: TCP`.
 */
export function defaultPodSpec(specValue: unknown): void {
  if (!isObj(specValue)) return;
  const spec = specValue;
  spec.dnsPolicy ??= "ClusterFirst";
  spec.restartPolicy ??= "Always";
  spec.terminationGracePeriodSeconds ??= 30;
  spec.securityContext ??= {};
  spec.schedulerName ??= "default-scheduler";
  spec.enableServiceLinks ??= true;
  defaultContainers(spec.containers);
  defaultContainers(spec.initContainers);
}

/**
 * `SetDefaults_Pod`'s resource rule: a container (or init container) that sets a limit but no request for a resource
 * requests its limit. Pods only — pod templates keep what they say (the rule is not in `SetDefaults_PodSpec`).
 */
function defaultRequestsToLimits(list: unknown): void {
  if (!Array.isArray(list)) return;
  for (const c of list) {
    const res = isObj(c) && isObj(c.resources) ? c.resources : undefined;
    if (res === undefined || !isObj(res.limits)) continue;
    const requests = isObj(res.requests) ? res.requests : {};
    for (const [k, v] of Object.entries(res.limits)) if (!(k in requests)) requests[k] = v;
    if (Object.keys(requests).length > 0) res.requests = requests;
  }
}

/**
 * A Pod's defaults: {@link defaultPodSpec} and the requests of containers that only set limits
 * (`SetDefaults_Pod`), plus what the `ServiceAccount` and `Priority` and `DefaultTolerationSeconds` admission
 * plugins add — `serviceAccountName`/`serviceAccount: default`, `priority: 0`, and the `not-ready`/`unreachable`
 * `NoExecute` tolerations for 300 s.
 */
export function defaultPod(pod: KubeObject): void {
  if (!isObj(pod.spec)) return;
  const spec = pod.spec as Obj;
  defaultPodSpec(spec);
  defaultRequestsToLimits(spec.containers);
  defaultRequestsToLimits(spec.initContainers);
  spec.serviceAccountName ??= "default";
  spec.serviceAccount ??= spec.serviceAccountName;
  spec.priority ??= 0;
  const tolerations = Array.isArray(spec.tolerations) ? (spec.tolerations as Obj[]) : [];
  for (const key of ["node.kubernetes.io/not-ready", "node.kubernetes.io/unreachable"]) {
    const has = tolerations.some(
      (t) => isObj(t) && (t.key === key || (t.key === undefined && t.operator === "Exists")),
    );
    if (!has) tolerations.push({ key, operator: "Exists", effect: "NoExecute", tolerationSeconds: 300 });
  }
  spec.tolerations = tolerations;
}

/** Defaults of a pod template's spec (`spec.template.spec`) of a workload. */
export function defaultTemplate(obj: KubeObject): void {
  const tpl = (obj.spec as Obj | undefined)?.template;
  if (isObj(tpl)) defaultPodSpec(tpl.spec);
}
