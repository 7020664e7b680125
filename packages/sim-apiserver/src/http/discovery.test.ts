import { describe, expect, it } from "vitest";
import { DEFAULT_VERBS, type ServedResource } from "../engine/served-resource.js";
import { apiGroup, apiGroupList, apiResourceList, apiVersions, compareKubeVersions } from "./discovery.js";
import { buildOpenApiV3, openApiV3PathKey } from "./openapi.js";

const res = (group: string, version: string, resource: string, kind: string, namespaced = true): ServedResource => ({
  group,
  version,
  resource,
  kind,
  singularName: kind.toLowerCase(),
  namespaced,
  verbs: DEFAULT_VERBS,
});
const served = [
  res("", "v1", "configmaps", "ConfigMap"),
  res("", "v1", "namespaces", "Namespace", false),
  res("apps", "v1", "deployments", "Deployment"),
  res("example.com", "v1beta1", "widgets", "Widget"),
  res("example.com", "v1", "widgets", "Widget"),
];

describe("discovery documents", () => {
  it("/api lists core versions with the server address", () => {
    expect(apiVersions(served, "127.0.0.1:1")).toEqual({
      kind: "APIVersions",
      versions: ["v1"],
      serverAddressByClientCIDRs: [{ clientCIDR: "0.0.0.0/0", serverAddress: "127.0.0.1:1" }],
    });
  });
  it("/apis lists every non-core group, GA version preferred", () => {
    expect(apiGroupList(served)).toEqual({
      kind: "APIGroupList",
      apiVersion: "v1",
      groups: [
        {
          name: "apps",
          versions: [{ groupVersion: "apps/v1", version: "v1" }],
          preferredVersion: { groupVersion: "apps/v1", version: "v1" },
        },
        {
          name: "example.com",
          versions: [
            { groupVersion: "example.com/v1", version: "v1" },
            { groupVersion: "example.com/v1beta1", version: "v1beta1" },
          ],
          preferredVersion: { groupVersion: "example.com/v1", version: "v1" },
        },
      ],
    });
    expect(apiGroupList([])).toEqual({ kind: "APIGroupList", apiVersion: "v1", groups: [] });
    expect(apiGroup(served, "apps")).toMatchObject({ kind: "APIGroup", name: "apps" });
    expect(apiGroup(served, "nope")).toBeUndefined();
  });
  it("/api/v1 is an APIResourceList sorted by name; unknown GV is undefined", () => {
    const l = apiResourceList(served, "", "v1") as { groupVersion: string; resources: Array<Record<string, unknown>> };
    expect(l.groupVersion).toBe("v1");
    expect(l.resources.map((r) => [r.name, r.kind, r.namespaced])).toEqual([
      ["configmaps", "ConfigMap", true],
      ["namespaces", "Namespace", false],
      ["namespaces/finalize", "Namespace", false],
    ]);
    expect(l.resources[0]!.verbs).toEqual(["create", "delete", "get", "list", "patch", "update", "watch"]);
    expect(apiResourceList(served, "apps", "v2")).toBeUndefined();
  });
  it("pods lists the subresources the simulator serves: pods/log only with a backend answering logs; no exec, attach, portforward", () => {
    const withPods = [...served, res("", "v1", "pods", "Pod")];
    const names = (podLog: boolean) =>
      (apiResourceList(withPods, "", "v1", { podLog }) as { resources: { name: string }[] }).resources
        .map((r) => r.name)
        .filter((n) => n.startsWith("pods/"));
    expect(names(true)).toEqual(["pods/binding", "pods/log", "pods/eviction"]);
    expect(names(false)).toEqual(["pods/binding", "pods/eviction"]);
    const log = (
      apiResourceList(withPods, "", "v1", { podLog: true }) as { resources: { name: string }[] }
    ).resources.find((r) => r.name === "pods/log");
    expect(log).toEqual({ name: "pods/log", singularName: "", namespaced: true, kind: "Pod", verbs: ["get"] });
  });

  it("compareKubeVersions orders GA > beta > alpha, then by number", () => {
    expect(["v1alpha1", "v2", "v1beta2", "v1", "foo", "v1beta1", "v10"].sort(compareKubeVersions)).toEqual([
      "v10",
      "v2",
      "v1",
      "v1beta2",
      "v1beta1",
      "v1alpha1",
      "foo",
    ]);
  });
});

describe("OpenAPI v3 index and patch operations (what kubectl's queryParamVerifierV3 needs)", () => {
  it("index points at one document per group version, with a content hash", () => {
    const o = buildOpenApiV3(served);
    const paths = (o.index as { paths: Record<string, { serverRelativeURL: string }> }).paths;
    expect(Object.keys(paths).sort()).toEqual([
      "api/v1",
      "apis/apps/v1",
      "apis/example.com/v1",
      "apis/example.com/v1beta1",
    ]);
    expect(paths["api/v1"]!.serverRelativeURL).toMatch(/^\/openapi\/v3\/api\/v1\?hash=[0-9A-F]{128}$/);
    expect(openApiV3PathKey("apps", "v1")).toBe("apis/apps/v1");
  });
  it("each GVK has a PATCH operation tagged with its GVK and a fieldValidation query parameter", () => {
    const doc = JSON.parse(buildOpenApiV3(served).docs.get("api/v1")!) as {
      paths: Record<
        string,
        { patch?: { "x-kubernetes-group-version-kind": unknown; parameters: Array<{ name: string; in: string }> } }
      >;
    };
    const cmPath = doc.paths["/api/v1/namespaces/{namespace}/configmaps/{name}"]!;
    expect(cmPath.patch!["x-kubernetes-group-version-kind"]).toEqual({ group: "", kind: "ConfigMap", version: "v1" });
    expect(cmPath.patch!.parameters).toContainEqual(expect.objectContaining({ name: "fieldValidation", in: "query" }));
    expect(doc.paths["/api/v1/namespaces/{name}"]!.patch!["x-kubernetes-group-version-kind"]).toEqual({
      group: "",
      kind: "Namespace",
      version: "v1",
    });
  });
});
