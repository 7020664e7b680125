// A custom resource for tests: namespaced `widgets.example.com/v1` (short name `wg`), registered on an engine with
// `engine.register(WIDGETS)`; and CustomResourceDefinitions built from a spec schema.

import type { KubeObject } from "@informer-ts/apimachinery";
import type { SimResource } from "./resources.js";
import { DEFAULT_VERBS } from "./served-resource.js";

export const WIDGETS: SimResource = Object.freeze({
  group: "example.com",
  version: "v1",
  resource: "widgets",
  kind: "Widget",
  singularName: "widget",
  namespaced: true,
  shortNames: ["wg"],
  verbs: DEFAULT_VERBS,
  custom: true,
});

/**
 * A namespaced CustomResourceDefinition `<plural>.<group>` with one served storage version `v1` whose object schema
 * has the given `spec` schema.
 */
export function crdWithSpec(group: string, plural: string, kind: string, spec: Record<string, unknown>): KubeObject {
  return {
    apiVersion: "apiextensions.k8s.io/v1",
    kind: "CustomResourceDefinition",
    metadata: { name: `${plural}.${group}` },
    spec: {
      group,
      scope: "Namespaced",
      names: { plural, kind },
      versions: [
        {
          name: "v1",
          served: true,
          storage: true,
          schema: { openAPIV3Schema: { type: "object", properties: { spec } } },
        },
      ],
    },
  };
}
