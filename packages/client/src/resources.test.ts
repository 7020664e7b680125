import { fc, test } from "@fast-check/vitest";
import { describe, expect, it } from "vitest";
import { builtinResources } from "./builtin-resources.js";
import {
  apiVersionOf,
  customResource,
  goDurationSeconds,
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

describe("listOptionsQuery (ListOptions through the parameter codec)", () => {
  it("a watch sends watch=true, the bookmarks flag, RV, and timeoutSeconds twice (timeout as a Go duration)", () => {
    const q = listOptionsQuery(
      { resourceVersion: "12345", allowWatchBookmarks: true, timeoutSeconds: 572, labelSelector: "app=x" },
      true,
    );
    expect(q.toString()).toBe(
      "allowWatchBookmarks=true&labelSelector=app%3Dx&resourceVersion=12345&timeout=9m32s&timeoutSeconds=572&watch=true",
    );
  });

  it("omits empty fields like Go's omitempty, but sends an explicit sendInitialEvents=false", () => {
    expect(listOptionsQuery({ resourceVersion: "", limit: 0, allowWatchBookmarks: false }, false).toString()).toBe("");
    expect(listOptionsQuery({ sendInitialEvents: false }, true).toString()).toBe("sendInitialEvents=false&watch=true");
    expect(
      listOptionsQuery(
        { sendInitialEvents: true, resourceVersionMatch: "NotOlderThan", resourceVersion: "", continue: "tok" },
        false,
      ).toString(),
    ).toBe("continue=tok&resourceVersionMatch=NotOlderThan&sendInitialEvents=true");
    expect(listOptionsQuery({ timeoutSeconds: 0 }, false).toString()).toBe("timeoutSeconds=0");
  });

  it.each([
    [1, "1s"],
    [59, "59s"],
    [60, "1m0s"],
    [300, "5m0s"],
    [599, "9m59s"],
    [3600, "1h0m0s"],
    [3725, "1h2m5s"],
    [0, "0s"],
  ])("goDurationSeconds(%d) = %s", (s, want) => {
    expect(goDurationSeconds(s)).toBe(want);
  });

  test.prop([fc.integer({ min: 0, max: 10_000_000 })])("a Go duration parses back to the seconds", (s) => {
    const m = /^(?:(\d+)h)?(?:(\d+)m)?(\d+)s$/.exec(goDurationSeconds(s));
    expect(m).not.toBeNull();
    const [, h = "0", mi = "0", sec = "0"] = m!;
    expect(Number(h) * 3600 + Number(mi) * 60 + Number(sec)).toBe(s);
  });
});
