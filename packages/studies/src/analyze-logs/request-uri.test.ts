import { describe, expect, it } from "vitest";
import { readOptionsOfQuery, requestShape } from "./request-shape.js";
import { parseRequestUri } from "./request-uri.js";

describe("parseRequestUri", () => {
  it("reads core and group resources, namespaces, names, subresources and the query", () => {
    const a = parseRequestUri("/api/v1/namespaces/kube-system/pods/p1/status?dryRun=All");
    expect(a).toMatchObject({ resource: "pods", namespace: "kube-system", name: "p1", subresource: "status" });
    expect(a.query.get("dryRun")).toBe("All");
    const b = parseRequestUri("/apis/apps/v1/statefulsets?limit=500&resourceVersion=0&labelSelector=app%3Dweb");
    expect(b).toMatchObject({ resource: "statefulsets.apps", namespace: "", name: "", isResource: true });
    expect(b.query.get("labelSelector")).toBe("app=web");
    expect(parseRequestUri("/api/v1/namespaces/ns1")).toMatchObject({ resource: "namespaces", name: "ns1" });
    expect(parseRequestUri("/api/v1/namespaces/ns1/finalize")).toMatchObject({
      resource: "namespaces",
      name: "ns1",
      subresource: "finalize",
    });
    expect(parseRequestUri("/api/v1/watch/namespaces/a/configmaps")).toMatchObject({
      resource: "configmaps",
      namespace: "a",
      legacyWatchPath: true,
    });
  });

  it("reports non-resource URLs and unreadable escapes without throwing", () => {
    expect(parseRequestUri("/healthz")).toMatchObject({ resource: "/healthz", isResource: false });
    expect(parseRequestUri("/apis/apps")).toMatchObject({ isResource: false });
    expect(parseRequestUri("/api/v1/pods?labelSelector=%E0%A4%A").query.get("labelSelector")).toBe("%E0%A4%A");
  });
});

describe("requestShape", () => {
  const shape = (verb: string, uri: string) => requestShape(verb, readOptionsOfQuery(parseRequestUri(uri).query));
  it("labels what decides cache or storage", () => {
    expect(shape("list", "/api/v1/pods")).toBe('list RV=""');
    expect(shape("list", "/api/v1/pods?limit=500&resourceVersion=0")).toBe('list RV="0" limit');
    expect(shape("list", "/api/v1/pods?limit=500&labelSelector=app%3Dx")).toBe('list RV="" limit selector');
    expect(shape("list", "/api/v1/pods?limit=500&continue=abc")).toBe("list continue");
    expect(shape("list", "/api/v1/pods?resourceVersion=123&resourceVersionMatch=Exact")).toBe("list RV=N Exact");
    expect(shape("get", "/api/v1/namespaces/a/configmaps/c?resourceVersion=0")).toBe('get RV="0"');
    expect(shape("watch", "/api/v1/pods?watch=1&resourceVersion=12")).toBe("watch RV=N");
    expect(shape("watch", "/api/v1/pods?watch=1&sendInitialEvents=true&resourceVersionMatch=NotOlderThan")).toBe(
      "watch-list",
    );
    expect(shape("create", "/api/v1/namespaces/a/pods")).toBe("create");
  });
});
