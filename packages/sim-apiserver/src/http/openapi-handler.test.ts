// The OpenAPI endpoints over HTTP (kube-openapi's handler and handler3): the v3 index and per-group-version
// documents with their hashes (a stale hash redirects), ETag / If-None-Match on both versions, JSON only (406 for a
// protobuf-only Accept, from which client-go falls back), and a CustomResourceDefinition's kind published on create,
// changed on update and removed on delete.
import { FakeClock } from "@informer-ts/clock";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type EngineServer, startEngineServer } from "./engine-server.test-util.js";

let s: EngineServer;
const clock = new FakeClock();
beforeAll(async () => {
  s = await startEngineServer(clock);
});
afterAll(async () => {
  await s.close();
});

const get = (path: string, headers: Record<string, string> = {}) =>
  fetch(`${s.url}${path}`, { headers, redirect: "manual" });

const crd = (description: string) => ({
  apiVersion: "apiextensions.k8s.io/v1",
  kind: "CustomResourceDefinition",
  metadata: { name: "gadgets.example.com" },
  spec: {
    group: "example.com",
    scope: "Cluster",
    names: { plural: "gadgets", singular: "gadget", kind: "Gadget", listKind: "GadgetList" },
    versions: [
      {
        name: "v1",
        served: true,
        storage: true,
        schema: { openAPIV3Schema: { type: "object", description, properties: { spec: { type: "object" } } } },
      },
    ],
  },
});

describe("OpenAPI endpoints", () => {
  it("/openapi/v3 indexes every served group version; a document with a stale hash redirects to the current one", async () => {
    const index = (await (await get("/openapi/v3")).json()) as { paths: Record<string, { serverRelativeURL: string }> };
    expect(Object.keys(index.paths)).toEqual(expect.arrayContaining(["api/v1", "apis/apps/v1", "apis/batch/v1"]));
    const url = index.paths["apis/apps/v1"]!.serverRelativeURL;
    const ok = await get(url);
    expect(ok.status).toBe(200);
    expect(ok.headers.get("cache-control")).toBe("public, immutable");
    const etag = ok.headers.get("etag")!;
    expect(etag).toBe(`"${url.slice(url.indexOf("hash=") + 5)}"`);
    const doc = (await ok.json()) as { components: { schemas: Record<string, unknown> } };
    expect(doc.components.schemas["io.k8s.api.apps.v1.Deployment"]).toBeDefined();
    const stale = await get("/openapi/v3/apis/apps/v1?hash=0123");
    expect(stale.status).toBe(301);
    expect(stale.headers.get("location")).toBe(url);
    expect((await get("/openapi/v3/apis/apps/v1", { "if-none-match": etag })).status).toBe(304);
    expect((await get("/openapi/v3/apis/nope/v1")).status).toBe(404);
  });

  it("/openapi/v2 is JSON with an ETag; If-None-Match answers 304; a protobuf-only Accept is 406", async () => {
    const ok = await get("/openapi/v2");
    expect(ok.status).toBe(200);
    expect(ok.headers.get("content-type")).toBe("application/json");
    const etag = ok.headers.get("etag")!;
    const doc = (await ok.json()) as { swagger: string; definitions: Record<string, unknown> };
    expect(doc.swagger).toBe("2.0");
    expect(doc.definitions["io.k8s.api.core.v1.Pod"]).toBeDefined();
    expect((await get("/openapi/v2", { "if-none-match": etag })).status).toBe(304);
    const pb = await get("/openapi/v2", { accept: "application/com.github.proto-openapi.spec.v2@v1.0+protobuf" });
    expect(pb.status).toBe(406);
    const pb3 = await get("/openapi/v3/api/v1", {
      accept: "application/com.github.proto-openapi.spec.v3@v1.0+protobuf",
    });
    expect(pb3.status).toBe(406);
  });

  it("a CustomResourceDefinition's schema is published on create, updated on update and removed on delete", async () => {
    const defOf = async () =>
      ((await (await get("/openapi/v2")).json()) as { definitions: Record<string, { description?: string }> })
        .definitions["com.example.v1.Gadget"];
    const post = await fetch(`${s.url}/apis/apiextensions.k8s.io/v1/customresourcedefinitions`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify(crd("first")),
    });
    expect(post.status).toBe(201);
    expect((await defOf())?.description).toBe("first");
    const index = (await (await get("/openapi/v3")).json()) as { paths: Record<string, unknown> };
    expect(index.paths["apis/example.com/v1"]).toBeDefined();
    const live = (await post.json()) as { metadata: { resourceVersion: string } };
    const next = crd("second");
    const put = await fetch(`${s.url}/apis/apiextensions.k8s.io/v1/customresourcedefinitions/gadgets.example.com`, {
      method: "PUT",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ ...next, metadata: { ...next.metadata, resourceVersion: live.metadata.resourceVersion } }),
    });
    expect(put.status).toBe(200);
    expect((await defOf())?.description).toBe("second");
    const del = await fetch(`${s.url}/apis/apiextensions.k8s.io/v1/customresourcedefinitions/gadgets.example.com`, {
      method: "DELETE",
    });
    expect(del.status).toBe(200);
    // The definition goes once its cleanup finalizer has deleted the custom resources (the engine's controller).
    const path = "/apis/apiextensions.k8s.io/v1/customresourcedefinitions/gadgets.example.com";
    for (let i = 0; i < 50 && (await get(path)).status !== 404; i++) await clock.step(100);
    expect((await get(path)).status).toBe(404);
    expect(await defOf()).toBeUndefined();
    expect(
      ((await (await get("/openapi/v3")).json()) as { paths: Record<string, unknown> }).paths["apis/example.com/v1"],
    ).toBeUndefined();
  });
});
