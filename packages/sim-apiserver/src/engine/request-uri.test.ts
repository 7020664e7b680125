import { describe, expect, it } from "vitest";
import { requestPath, requestURI } from "./request-uri.js";

const cm = { group: "", version: "v1", resource: "configmaps", namespaced: true };

describe("requestURI", () => {
  it("builds the path a client would use, core and named groups", () => {
    expect(requestPath({ ...cm, namespace: "default", name: "nginx-cfgmap" })).toBe(
      "/api/v1/namespaces/default/configmaps/nginx-cfgmap",
    );
    expect(requestPath({ ...cm, namespace: "", name: "" })).toBe("/api/v1/configmaps");
    expect(
      requestPath({
        group: "apps",
        version: "v1",
        resource: "deployments",
        namespaced: true,
        namespace: "a",
        name: "d",
        subresource: "scale",
      }),
    ).toBe("/apis/apps/v1/namespaces/a/deployments/d/scale");
    expect(
      requestPath({ group: "", version: "v1", resource: "nodes", namespaced: false, namespace: "x", name: "n1" }),
    ).toBe("/api/v1/nodes/n1");
  });

  it("encodes the set list options sorted, with watch=true for a watch", () => {
    const t = { ...cm, namespace: "default", name: "" };
    expect(requestURI(t, "list", { limit: 500, resourceVersion: "0", labelSelector: "app=x" })).toBe(
      "/api/v1/namespaces/default/configmaps?labelSelector=app%3Dx&limit=500&resourceVersion=0",
    );
    expect(
      requestURI(t, "watch", { fieldSelector: "metadata.name=a", allowWatchBookmarks: true, sendInitialEvents: false }),
    ).toBe(
      "/api/v1/namespaces/default/configmaps?allowWatchBookmarks=true&fieldSelector=metadata.name%3Da&sendInitialEvents=false&watch=true",
    );
    expect(requestURI(t, "list")).toBe("/api/v1/namespaces/default/configmaps");
  });
});
