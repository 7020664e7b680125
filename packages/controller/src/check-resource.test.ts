import { builtinResources, type ResourceDescriptor } from "@informer-ts/client";
import { describe, expect, it } from "vitest";
import { checkResource } from "./check-resource.js";

describe("checkResource", () => {
  it("accepts a descriptor", () => {
    expect(() => checkResource(builtinResources.configmaps, "for()")).not.toThrow();
  });

  it.each([
    ["undefined", undefined],
    ["a string", "configmaps"],
    ["an empty resource", { ...builtinResources.configmaps, resource: "" }],
    ["no kind", { ...builtinResources.configmaps, kind: undefined }],
    ["a missing namespaced", { ...builtinResources.configmaps, namespaced: undefined }],
    ["a numeric version", { ...builtinResources.configmaps, version: 1 }],
  ])("rejects %s, naming the caller", (_what, value) => {
    expect(() => checkResource(value as unknown as ResourceDescriptor, "owns()")).toThrow(
      new TypeError("owns(): not a resource descriptor (group, version, resource, kind, namespaced)"),
    );
  });
});
