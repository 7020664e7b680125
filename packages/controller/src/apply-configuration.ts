// The typed bodies of server-side apply: the fields a manager means to own.
import type { KubeObject, ObjectMeta } from "@informer-ts/apimachinery";

/** Every field optional, at every depth (arrays of deep partials); what an apply configuration is made of. */
export type DeepPartial<T> = T extends readonly (infer E)[]
  ? DeepPartial<E>[]
  : T extends object
    ? { [K in keyof T]?: DeepPartial<T[K]> }
    : T;

/**
 * An apply configuration of a `T` (client-go's `applyconfigurations`, controller-runtime's `client.ApplyConfiguration`):
 * the fields this field manager owns, everything optional except what names the object — `apiVersion`, `kind` and
 * `metadata.name`. Works for the built-in kinds (`ApplyConfiguration<Deployment>`) and for a custom resource's own
 * declared type (`ApplyConfiguration<Widget>`). A field left out is not owned: with server-side apply, leaving a field
 * out that this manager owned before removes it.
 *
 * Differences from client-go: a type, not generated builder functions (`apps.Deployment(name, ns).WithSpec(…)`).
 */
export type ApplyConfiguration<T extends KubeObject> = DeepPartial<Omit<T, "apiVersion" | "kind" | "metadata">> & {
  apiVersion: NonNullable<T["apiVersion"]>;
  kind: NonNullable<T["kind"]>;
  metadata: DeepPartial<ObjectMeta> & { name: string };
};
