// The typed bodies of server-side apply: the fields a manager means to own (client-go's applyconfigurations).
import type { KubeObject, ObjectMeta } from "@informer-ts/apimachinery";
import { apiVersionOf, type DeepPartial, type ResourceDescriptor } from "@informer-ts/client";

/**
 * An apply configuration of a `T` (client-go's `applyconfigurations`, controller-runtime's `client.ApplyConfiguration`):
 * the fields this field manager owns, everything optional except what names the object — `apiVersion`, `kind` and
 * `metadata.name`. `metadata` is an `ObjectMeta` (its fields are optional already; an owner reference in it is
 * whole, as `setControllerReference` writes it). Works for the built-in kinds (`ApplyConfiguration<Deployment>`) and for a custom resource's own
 * declared type (`ApplyConfiguration<Widget>`). A field left out is not owned: with server-side apply, leaving a field
 * out that this manager owned before removes it.
 *
 * Differences from client-go: a type and one constructor ({@link applyConfiguration}), not generated builders
 * (`appsv1ac.Deployment(name, ns).WithSpec(appsv1ac.DeploymentSpec().WithReplicas(3))`). The Go builders exist because
 * a Go struct cannot tell a field left unset from its zero value without a pointer per field; the builders take those
 * pointers for you. A TypeScript object literal with optional fields already says "unset" by leaving a field out and is
 * checked field by field by the compiler (a wrong type, a misspelt field in a fresh literal), so generated builders
 * would add thousands of lines and no checking.
 */
export type ApplyConfiguration<T extends KubeObject> = DeepPartial<Without<T, "apiVersion" | "kind" | "metadata">> & {
  apiVersion: NonNullable<T["apiVersion"]>;
  kind: NonNullable<T["kind"]>;
  metadata: ObjectMeta & { name: string };
};

/**
 * `T` without the keys `K`, keeping both its declared fields and its index signature (`Omit` of a type with an index
 * signature, as a CRD type extending `KubeObject` has, keeps only the index signature and loses the declared fields).
 */
type Without<T, K> = { [P in keyof T as P extends K ? never : P]: T[P] };

/**
 * The apply configuration naming one object of `resource` — its `apiVersion`, `kind`, `metadata.name` and (for a
 * namespaced resource) `metadata.namespace` — with `fields` (the rest of what this manager owns, labels and
 * annotations under `metadata` too) merged in: client-go's per-kind constructors (`appsv1ac.Deployment("web", "ns")`) followed by the `With…` calls, as one
 * typed literal. `applyConfiguration(builtinResources.deployments, "web", "ns", { spec: { replicas: 3 } })`.
 */
export function applyConfiguration<T extends KubeObject>(
  resource: ResourceDescriptor<T>,
  name: string,
  namespace?: string,
  fields?: NoInfer<DeepPartial<Without<T, "apiVersion" | "kind" | "metadata">> & { metadata?: ObjectMeta }>,
): ApplyConfiguration<T> {
  if (typeof name !== "string" || name === "") {
    throw new TypeError(`applyConfiguration: a ${resource.kind} needs a metadata.name, got ${JSON.stringify(name)}`);
  }
  if (resource.namespaced && (namespace === undefined || namespace === "")) {
    throw new TypeError(`applyConfiguration: ${resource.kind} ${name} is namespaced and needs a namespace`);
  }
  if (!resource.namespaced && namespace !== undefined && namespace !== "") {
    throw new TypeError(
      `applyConfiguration: ${resource.kind} is cluster-scoped; ${name} cannot have namespace ${namespace}`,
    );
  }
  const metadata = {
    ...(fields as { metadata?: object } | undefined)?.metadata,
    name,
    ...(resource.namespaced && { namespace }),
  };
  return { ...fields, apiVersion: apiVersionOf(resource), kind: resource.kind, metadata } as ApplyConfiguration<T>;
}
