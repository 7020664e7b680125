import type { KubeObject } from "@informer-ts/apimachinery";

/** The IngressClass annotation that makes a class the default (`AnnotationIsDefaultIngressClass`). */
export const IS_DEFAULT_INGRESS_CLASS = "ingressclass.kubernetes.io/is-default-class";
/** The deprecated Ingress annotation that names a class (`AnnotationIngressClass`): such an Ingress is left alone. */
export const INGRESS_CLASS_ANNOTATION = "kubernetes.io/ingress.class";

/**
 * `getDefaultClass`: of the IngressClasses annotated `is-default-class: "true"`, the newest by creationTimestamp, the
 * lowest name among equally old ones; `undefined` when none is.
 */
export function defaultIngressClass(classes: Iterable<KubeObject>): KubeObject | undefined {
  let best: KubeObject | undefined;
  let bestAt = 0;
  for (const c of classes) {
    if (c.metadata?.annotations?.[IS_DEFAULT_INGRESS_CLASS] !== "true") continue;
    const at = Date.parse(String(c.metadata.creationTimestamp ?? "")) || 0;
    const name = String(c.metadata.name ?? "");
    if (best === undefined || at > bestAt || (at === bestAt && name < String(best.metadata?.name ?? ""))) {
      best = c;
      bestAt = at;
    }
  }
  return best;
}

/**
 * The `DefaultIngressClass` admission plugin (plugin/pkg/admission/network/defaultingressclass/admission.go) on a
 * new Ingress, in place: without `spec.ingressClassName` and without the `kubernetes.io/ingress.class` annotation it
 * gets the name of the default IngressClass ({@link defaultIngressClass}), if there is one.
 */
export function admitDefaultIngressClass(ingress: KubeObject, classes: () => Iterable<KubeObject>): void {
  const spec = (ingress.spec ?? {}) as { ingressClassName?: unknown };
  if (spec.ingressClassName !== undefined && spec.ingressClassName !== null) return;
  if (ingress.metadata?.annotations?.[INGRESS_CLASS_ANNOTATION] !== undefined) return;
  const chosen = defaultIngressClass(classes());
  if (chosen === undefined) return;
  ingress.spec = { ...spec, ingressClassName: chosen.metadata?.name };
}
