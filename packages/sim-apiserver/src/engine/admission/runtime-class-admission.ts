import type { KubeObject } from "@informer-ts/apimachinery";
import { compareQuantity, parseQuantity } from "./cel/quantity.js";

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === "object" && v !== null && !Array.isArray(v);

/** A pod refused by the plugin: the reason of its 403 `pods "x" is forbidden: <reason>`. */
export class RuntimeClassRejection extends Error {}

interface Toleration {
  key?: string;
  operator?: string;
  value?: string;
  effect?: string;
  tolerationSeconds?: number;
}

/** `apiequality.Semantic.DeepEqual` of two `ResourceList`s: the same names, each quantity equal by value. */
function sameResources(a: Obj, b: Obj): boolean {
  const ka = Object.keys(a);
  if (ka.length !== Object.keys(b).length) return false;
  return ka.every((k) => {
    if (!(k in b)) return false;
    const x = parseQuantity(String(a[k]));
    const y = parseQuantity(String(b[k]));
    return x instanceof Error || y instanceof Error ? a[k] === b[k] : compareQuantity(x, y) === 0;
  });
}

const sameToleration = (a: Toleration, b: Toleration): boolean =>
  (a.key ?? "") === (b.key ?? "") &&
  (a.operator ?? "") === (b.operator ?? "") &&
  (a.value ?? "") === (b.value ?? "") &&
  (a.effect ?? "") === (b.effect ?? "") &&
  a.tolerationSeconds === b.tolerationSeconds;

/** `isSuperset` of pkg/util/tolerations: whether `ss` tolerates everything `t` does. */
export function isSuperset(ss: Toleration, t: Toleration): boolean {
  if (sameToleration(ss, t)) return true;
  if ((t.key ?? "") !== (ss.key ?? "") && (ss.key ?? "") !== "") return false;
  const op = ss.operator ?? "Equal";
  if (op === "Equal" || op === "") {
    if ((t.operator ?? "Equal") !== "Equal" || (t.value ?? "") !== (ss.value ?? "")) return false;
  } else if (op !== "Exists") return false;
  if ((ss.effect ?? "") !== "" && ss.effect !== t.effect) return false;
  if (ss.effect === "NoExecute" && ss.tolerationSeconds !== undefined) {
    if (t.tolerationSeconds === undefined || t.tolerationSeconds > ss.tolerationSeconds) return false;
  }
  return true;
}

/**
 * `tolerations.MergeTolerations` (pkg/util/tolerations): both lists, dropping a toleration that one already kept or
 * a later different one covers (equal ones: the first stays).
 */
export function mergeTolerations(first: readonly Toleration[], second: readonly Toleration[]): Toleration[] {
  const all = [...first, ...second];
  const merged: Toleration[] = [];
  next: for (let i = 0; i < all.length; i++) {
    const t = all[i]!;
    for (const kept of merged) if (isSuperset(kept, t)) continue next;
    for (const later of all.slice(i + 1)) if (!sameToleration(t, later) && isSuperset(later, t)) continue next;
    merged.push(t);
  }
  return merged;
}

/** A new pod's RuntimeClass: none without `runtimeClassName`, a rejection when it names none that exists. */
function runtimeClassOf(pod: KubeObject, lookup: (name: string) => KubeObject | undefined): KubeObject | undefined {
  const name = isObj(pod.spec) ? pod.spec.runtimeClassName : undefined;
  if (typeof name !== "string") return undefined;
  const rc = lookup(name);
  if (rc === undefined) throw new RuntimeClassRejection(`pod rejected: RuntimeClass ${JSON.stringify(name)} not found`);
  return rc;
}

const OVERHEAD_MISMATCH = "pod rejected: Pod's Overhead doesn't match RuntimeClass's defined Overhead";

/**
 * The `RuntimeClass` admission plugin's mutating half (plugin/pkg/admission/runtimeclass/admission.go `Admit`) on a
 * new pod, in place: its RuntimeClass must exist; the class's `overhead.podFixed` becomes `spec.overhead` (a pod
 * that sets a different one is refused); the class's `scheduling.nodeSelector` is merged into the pod's (a key the
 * pod sets to another value is refused as a `conflict`) and its tolerations merged with the pod's. Throws a
 * {@link RuntimeClassRejection}.
 */
export function admitRuntimeClass(pod: KubeObject, lookup: (name: string) => KubeObject | undefined): void {
  const rc = runtimeClassOf(pod, lookup);
  if (rc === undefined || !isObj(pod.spec)) return;
  const spec = pod.spec;
  const overhead = isObj(rc.overhead) ? rc.overhead.podFixed : undefined;
  if (isObj(rc.overhead)) {
    const fixed = isObj(overhead) ? overhead : {};
    if (isObj(spec.overhead) && Object.keys(spec.overhead).length > 0 && !sameResources(fixed, spec.overhead))
      throw new RuntimeClassRejection(OVERHEAD_MISMATCH);
    if (isObj(overhead)) spec.overhead = { ...overhead };
    else delete spec.overhead;
  }
  const scheduling = isObj(rc.scheduling) ? rc.scheduling : undefined;
  if (scheduling === undefined) return;
  const runtimeSelector = isObj(scheduling.nodeSelector) ? (scheduling.nodeSelector as Record<string, string>) : {};
  if (isObj(spec.nodeSelector)) {
    const podSelector = spec.nodeSelector as Record<string, string>;
    for (const [k, v] of Object.entries(runtimeSelector)) {
      const podValue = podSelector[k];
      if (podValue !== undefined && podValue !== v)
        throw new RuntimeClassRejection(
          `conflict: runtimeClass.scheduling.nodeSelector[${k}] = ${v}; pod.spec.nodeSelector[${k}] = ${podValue}`,
        );
      podSelector[k] = v;
    }
  } else if (isObj(scheduling.nodeSelector)) spec.nodeSelector = { ...runtimeSelector };
  const podTolerations = Array.isArray(spec.tolerations) ? (spec.tolerations as Toleration[]) : [];
  const rcTolerations = Array.isArray(scheduling.tolerations) ? (scheduling.tolerations as Toleration[]) : [];
  const merged = mergeTolerations(podTolerations, rcTolerations);
  if (merged.length > 0) spec.tolerations = merged;
  else delete spec.tolerations;
}

/**
 * The plugin's validating half (`Validate`, `validateOverhead`): a pod's `spec.overhead` must be its RuntimeClass's
 * `overhead.podFixed`; without a class that defines one, a pod may not set it. The reason of the 403, or `undefined`.
 */
export function runtimeClassViolation(
  pod: KubeObject,
  lookup: (name: string) => KubeObject | undefined,
): string | undefined {
  let rc: KubeObject | undefined;
  try {
    rc = runtimeClassOf(pod, lookup);
  } catch (err) {
    return (err as Error).message;
  }
  const overhead = isObj(pod.spec) && isObj(pod.spec.overhead) ? pod.spec.overhead : {};
  if (Object.keys(overhead).length === 0) return undefined;
  if (rc !== undefined && isObj(rc.overhead)) {
    const fixed = isObj(rc.overhead.podFixed) ? rc.overhead.podFixed : {};
    return sameResources(fixed, overhead) ? undefined : OVERHEAD_MISMATCH;
  }
  return "pod rejected: Pod Overhead set without corresponding RuntimeClass defined Overhead";
}
