import { describe, expect, it } from "vitest";
import { builtinResources } from "./builtin-resources.js";
import {
  apiVersionOf,
  customResource,
  isValidPathSegmentName,
  listOptionsQuery,
  RequestConstructionError,
  resourcePath,
  resourceURL,
} from "./resources.js";

const { configmaps, nodes, deployments, leases, namespaces } = builtinResources;

describe("resource descriptors", () => {
  it("built-ins carry group, version, kind and scope", () => {
    expect(apiVersionOf(configmaps)).toBe("v1");
    expect(apiVersionOf(deployments)).toBe("apps/v1");
    expect(apiVersionOf(leases)).toBe("coordination.k8s.io/v1");
    expect(nodes.namespaced).toBe(false);
    expect(namespaces.namespaced).toBe(false);
    expect(builtinResources.statefulsets.kind).toBe("StatefulSet");
    expect(builtinResources.events.resource).toBe("events");
  });

  it("customResource defaults to namespaced and validates its fields", () => {
    const crd = customResource({ group: "example.com", version: "v1alpha1", resource: "widgets", kind: "Widget" });
    expect(crd.namespaced).toBe(true);
    expect(resourcePath(crd, { namespace: "ns1", name: "w" })).toBe(
      "/apis/example.com/v1alpha1/namespaces/ns1/widgets/w",
    );
    expect(() => customResource({ group: "g", version: "v1", resource: "a/b", kind: "K" })).toThrow(
      RequestConstructionError,
    );
    expect(() => customResource({ group: "g", version: "", resource: "x", kind: "K" })).toThrow(/version/);
  });
});

describe("URL building (Request.URL)", () => {
  it.each([
    [configmaps, {}, "/api/v1/configmaps"],
    [configmaps, { namespace: "" }, "/api/v1/configmaps"],
    [configmaps, { namespace: "kube-system" }, "/api/v1/namespaces/kube-system/configmaps"],
    [configmaps, { namespace: "ns", name: "cm-1" }, "/api/v1/namespaces/ns/configmaps/cm-1"],
    [nodes, { namespace: "ignored", name: "n1" }, "/api/v1/nodes/n1"],
    [nodes, { name: "n1", subresource: "status" }, "/api/v1/nodes/n1/status"],
    [deployments, { namespace: "a" }, "/apis/apps/v1/namespaces/a/deployments"],
    [
      deployments,
      { namespace: "a", name: "d", subresource: "scale" },
      "/apis/apps/v1/namespaces/a/deployments/d/scale",
    ],
    [leases, {}, "/apis/coordination.k8s.io/v1/leases"],
  ] as const)("%o %o → %s", (r, loc, want) => {
    expect(resourcePath(r, loc)).toBe(want);
  });

  it("keeps the server's path prefix and port, and appends the query", () => {
    const u = resourceURL(
      "https://10.0.0.1:6443/k8s/clusters/c-1/",
      configmaps,
      { namespace: "d" },
      listOptionsQuery({ limit: 500 }, false),
    );
    expect(u.toString()).toBe("https://10.0.0.1:6443/k8s/clusters/c-1/api/v1/namespaces/d/configmaps?limit=500");
    expect(resourceURL("http://127.0.0.1:8080", nodes).toString()).toBe("http://127.0.0.1:8080/api/v1/nodes");
  });

  it("TestRequestSetsNamespace / IsValidPathSegmentName: bad names are construction errors", () => {
    expect(isValidPathSegmentName("..")).toEqual(["may not be '..'"]);
    expect(isValidPathSegmentName("a/b%")).toEqual(["may not contain '/'", "may not contain '%'"]);
    expect(() => resourcePath(configmaps, { namespace: "ns", name: "a/b" })).toThrow(RequestConstructionError);
    expect(() => resourcePath(configmaps, { namespace: "..", name: "x" })).toThrow(/invalid namespace/);
    expect(() => resourcePath(configmaps, { namespace: "ns", name: "" })).toThrow(/may not be empty/);
    expect(() => resourcePath(configmaps, { subresource: "status" })).toThrow(/needs a resource name/);
  });
});
