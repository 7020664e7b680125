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
