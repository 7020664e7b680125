// A CustomResourceDefinition for the e2e tests (the framework's `fixtures.NewRandomNameV1CustomResourceDefinition`).
import type { KubernetesObject } from "@kubernetes/client-node";

let n = 0;

/** A namespaced, structural, one-version definition of group `mygroup.example.com` with a fresh plural. */
export function randomDefinition(scope: "Namespaced" | "Cluster" = "Namespaced") {
  const plural = `e2e-test-foos${++n}`;
  const kind = `E2eTestFoo${n}`;
  const definition: KubernetesObject & { metadata: { name: string }; spec: unknown } = {
    apiVersion: "apiextensions.k8s.io/v1",
    kind: "CustomResourceDefinition",
    metadata: { name: `${plural}.mygroup.example.com` },
    spec: {
      group: "mygroup.example.com",
      scope,
      names: { plural, singular: `e2e-test-foo${n}`, kind, listKind: `${kind}List` },
      versions: [
        {
          name: "v1beta1",
          served: true,
          storage: true,
          schema: { openAPIV3Schema: { type: "object", "x-kubernetes-preserve-unknown-fields": true } },
        },
      ],
    },
  };
  return { definition, plural, kind, apiVersion: "mygroup.example.com/v1beta1" };
}

/**
 * Creates a definition with a raw POST. client-node's `KubernetesObjectApi.create` serializes a
 * `V1CustomResourceDefinition` through its model, which reads `xKubernetesPreserveUnknownFields` and drops a
 * schema's `x-kubernetes-*` keys written with their wire names — the schema would lose
 * `x-kubernetes-preserve-unknown-fields` and the server would prune every field of the custom resources.
 */
export async function createDefinition(
  c: { raw(method: string, path: string, body?: unknown): Promise<{ status: number; json: unknown }> },
  definition: KubernetesObject,
): Promise<KubernetesObject> {
  const res = await c.raw("POST", "/apis/apiextensions.k8s.io/v1/customresourcedefinitions", definition);
  if (res.status !== 201)
    throw new Error(`creating ${definition.metadata?.name}: ${res.status} ${JSON.stringify(res.json)}`);
  return res.json as KubernetesObject;
}
