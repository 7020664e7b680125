// A CRD for the kit's tests of schema-generated histories: its schema states what generated objects must respect.
import type { KubeObject } from "@informer-ts/apimachinery";
import { customResource } from "@informer-ts/client";

/** A CRD whose schema says what generated objects must respect: required fields, enums, bounds, a pattern. */
export const gadgetCrd: KubeObject = {
  apiVersion: "apiextensions.k8s.io/v1",
  kind: "CustomResourceDefinition",
  metadata: { name: "gadgets.example.com" },
  spec: {
    group: "example.com",
    scope: "Namespaced",
    names: { plural: "gadgets", singular: "gadget", kind: "Gadget", listKind: "GadgetList" },
    versions: [
      {
        name: "v1",
        served: true,
        storage: true,
        subresources: { status: {} },
        schema: {
          openAPIV3Schema: {
            type: "object",
            properties: {
              spec: {
                type: "object",
                required: ["size", "color"],
                properties: {
                  size: { type: "integer", minimum: 1, maximum: 5 },
                  color: { type: "string", enum: ["red", "blue"] },
                  owner: { type: "string", pattern: "^[a-z]{2,6}$" },
                  tags: { type: "array", maxItems: 3, items: { type: "string", maxLength: 4 } },
                  limits: { type: "object", additionalProperties: { type: "integer", minimum: 0 } },
                },
              },
              status: {
                type: "object",
                properties: {
                  observedGeneration: { type: "integer", format: "int64" },
                  phase: { type: "string", enum: ["Pending", "Ready"] },
                },
              },
            },
          },
        },
      },
    ],
  },
};

/** The Gadgets' descriptor (`gadgets.example.com/v1`, namespaced, with `/status`). */
export const gadgets = customResource({
  group: "example.com",
  version: "v1",
  resource: "gadgets",
  kind: "Gadget",
  subresources: ["status"],
});
