import { describe, expect, it } from "vitest";
import { builtinResources, resources } from "./builtin-resources.js";
import { apiVersionOf, isBuiltinGroup, resourcePath } from "./resources.js";

describe("resources", () => {
  it("every built-in descriptor builds a valid path in a built-in group and lists its subresources", () => {
    for (const [name, r] of Object.entries(resources)) {
      expect(isBuiltinGroup(r.group), name).toBe(true);
      expect(r.resource, name).toBe(r.resource.toLowerCase());
      expect(Array.isArray(r.subresources), name).toBe(true);
      const path = resourcePath(r, { namespace: "ns", name: "x" });
      expect(path, name).toBe(
        `/${r.group === "" ? "api" : `apis/${r.group}`}/${r.version}${r.namespaced ? "/namespaces/ns" : ""}/${r.resource}/x`,
      );
    }
  });

  it("names what kube-apiserver serves", () => {
    expect(apiVersionOf(resources.eventsV1)).toBe("events.k8s.io/v1");
    expect(resources.eventsV1.kind).toBe("Event");
    expect(apiVersionOf(resources.horizontalPodAutoscalers)).toBe("autoscaling/v2");
    expect(resources.deployments.subresources).toEqual(["status", "scale"]);
    expect(resources.namespaces.namespaced).toBe(false);
    expect(resources.clusterRoles.namespaced).toBe(false);
  });

  it("builtinResources are the same descriptors under the earlier names", () => {
    expect(builtinResources.configmaps).toBe(resources.configMaps);
    expect(builtinResources.statefulsets).toBe(resources.statefulSets);
    expect(Object.keys(builtinResources)).toEqual([
      "configmaps",
      "secrets",
      "pods",
      "services",
      "events",
      "nodes",
      "namespaces",
      "deployments",
      "statefulsets",
      "leases",
    ]);
  });

  it("isBuiltinGroup: core, dot-less, *.k8s.io and *.kubernetes.io groups", () => {
    expect(isBuiltinGroup("")).toBe(true);
    expect(isBuiltinGroup("apps")).toBe(true);
    expect(isBuiltinGroup("rbac.authorization.k8s.io")).toBe(true);
    expect(isBuiltinGroup("internal.apiserver.kubernetes.io")).toBe(true);
    expect(isBuiltinGroup("example.com")).toBe(false);
    expect(isBuiltinGroup("k8s.io.example.com")).toBe(false);
  });
});
