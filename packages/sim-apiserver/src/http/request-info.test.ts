import { describe, expect, it } from "vitest";
import { parseRequestInfo } from "./request-info.js";

// Cases after apiserver pkg/endpoints/request/requestinfo_test.go TestGetAPIRequestInfo.
describe("parseRequestInfo (RequestInfoFactory.NewRequestInfo)", () => {
  const cases: Array<[string, Partial<ReturnType<typeof parseRequestInfo>>]> = [
    ["/api/v1/namespaces", { apiGroup: "", apiVersion: "v1", namespace: "", resource: "namespaces", name: "" }],
    ["/api/v1/namespaces/other", { namespace: "other", resource: "namespaces", name: "other" }],
    ["/api/v1/namespaces/other/pods", { namespace: "other", resource: "pods", name: "" }],
    ["/api/v1/namespaces/other/pods/foo", { namespace: "other", resource: "pods", name: "foo" }],
    ["/api/v1/pods", { namespace: "", resource: "pods", name: "" }],
    ["/api/v1/namespaces/other/pods/foo/status", { resource: "pods", name: "foo", subresource: "status" }],
    [
      "/api/v1/namespaces/other/finalize",
      { namespace: "other", resource: "namespaces", name: "other", subresource: "finalize" },
    ],
    ["/api/v1/watch/pods", { legacyWatch: true, resource: "pods" }],
    [
      "/api/v1/watch/namespaces/other/pods/foo",
      { legacyWatch: true, namespace: "other", resource: "pods", name: "foo" },
    ],
    [
      "/apis/apps/v1/namespaces/ns/deployments/d",
      { apiGroup: "apps", apiVersion: "v1", namespace: "ns", resource: "deployments", name: "d" },
    ],
    [
      "/apis/extensions/v1beta1/namespaces/other/extensions",
      { apiGroup: "extensions", apiVersion: "v1beta1", resource: "extensions" },
    ],
    ["/api/v1/namespaces/a%2Cb/configmaps/x%20y", { namespace: "a,b", resource: "configmaps", name: "x y" }],
  ];
  for (const [path, want] of cases) {
    it(`${path} is a resource request`, () => {
      const info = parseRequestInfo(path);
      expect(info.isResourceRequest).toBe(true);
      expect(info).toMatchObject(want);
    });
  }
  it("discovery and other paths are non-resource requests", () => {
    for (const p of [
      "/",
      "/api",
      "/api/v1",
      "/apis",
      "/apis/apps",
      "/apis/apps/v1",
      "/version",
      "/healthz",
      "/openapi/v3",
      "/api/v1/watch",
    ]) {
      expect(parseRequestInfo(p).isResourceRequest, p).toBe(false);
    }
  });
  it("a malformed percent-encoding is a non-resource request (404), not a crash", () => {
    expect(parseRequestInfo("/api/v1/namespaces/%E0%A4%A/configmaps").isResourceRequest).toBe(false);
  });
});
