/**
 * One trimmed OpenAPI v2 schema of a built-in type (see `openapi/README.md`): the structural keywords only. `x`
 * marks types whose JSON form the schema does not state: `int-or-string` (`intstr.IntOrString`), `quantity`
 * (`resource.Quantity`, a string or a number) and `any` (`RawExtension`, `FieldsV1`, apiextensions' `JSON`: any
 * value, not walked).
 */
export interface OpenApiSchema {
  readonly type?: string;
  readonly format?: string;
  readonly properties?: Readonly<Record<string, OpenApiSchema>>;
  readonly items?: OpenApiSchema;
  readonly additionalProperties?: OpenApiSchema;
  /** A definition's key (without `io.k8s.`), e.g. `api.core.v1.PodSpec`. */
  readonly $ref?: string;
  readonly x?: "int-or-string" | "quantity" | "any";
  readonly "x-kubernetes-list-type"?: string;
  readonly "x-kubernetes-list-map-keys"?: readonly string[];
  readonly "x-kubernetes-map-type"?: string;
}

/** Definitions by key (`api.apps.v1.Deployment`, `apimachinery.pkg.apis.meta.v1.ObjectMeta`, …). */
export type OpenApiDefinitions = Readonly<Record<string, OpenApiSchema>>;
