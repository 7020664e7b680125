import { afterEach, describe, expect, it } from "vitest";
import { builtinResources } from "./builtin-resources.js";
import { sendJSON, startServer, type TestServer } from "./internal/test-server.test-util.js";
import { listWatchFor, metadataListWatchFor } from "./listwatch.js";
import { KubeClient } from "./rest-client.js";

let server: TestServer | undefined;
let client: KubeClient | undefined;
afterEach(async () => {
  await client?.close();
  await server?.close();
});

describe("listWatchFor (NewFilteredListWatchFromClient)", () => {
  it("applies the namespace and selectors to list and watch; watch sets watch=true and resolves on headers", async () => {
    let release: (() => void) | undefined;
    server = await startServer((req, res) => {
      if (req.url?.includes("watch=true")) {
        res.writeHead(200, { "content-type": "application/json" });
        res.flushHeaders();
        release = () =>
          res.end(`${JSON.stringify({ type: "ADDED", object: { metadata: { name: "p", resourceVersion: "8" } } })}\n`);
        return;
      }
      sendJSON(res, 200, { kind: "PodList", apiVersion: "v1", metadata: { resourceVersion: "7" }, items: [] });
    });
    client = new KubeClient({ server: server.url }, { quiet: true });
    const lw = listWatchFor(client, builtinResources.pods, {
      namespace: "ns1",
      fieldSelector: "spec.nodeName=n1",
      labelSelector: "app=web",
    });
    // What a reflector names in its failure warnings.
    expect(lw.target).toEqual({ url: server.url, group: "", version: "v1", resource: "pods", namespace: "ns1" });
    const list = await lw.list({ resourceVersion: "0", limit: 500, labelSelector: "ignored=true" });
    expect(list.metadata.resourceVersion).toBe("7");
    const w = await lw.watch({ resourceVersion: "7", allowWatchBookmarks: true, timeoutSeconds: 420 });
    expect(server.requests.map((r) => r.url)).toEqual([
      "/api/v1/namespaces/ns1/pods?fieldSelector=spec.nodeName%3Dn1&labelSelector=app%3Dweb&limit=500&resourceVersion=0",
      "/api/v1/namespaces/ns1/pods?allowWatchBookmarks=true&fieldSelector=spec.nodeName%3Dn1&labelSelector=app%3Dweb&resourceVersion=7&timeout=7m0s&timeoutSeconds=420&watch=true",
    ]);
    // watch() resolved although no event has been written yet.
    expect(release).toBeDefined();
    release!();
    const types: string[] = [];
    for await (const e of w) types.push(e.type);
    expect(types).toEqual(["ADDED"]);
  });

  it("without a namespace, lists and watches across all namespaces; cluster-scoped resources ignore it", async () => {
    server = await startServer((_req, res) => sendJSON(res, 200, { metadata: {}, items: [] }));
    client = new KubeClient({ server: server.url }, { quiet: true });
    await listWatchFor(client, builtinResources.configmaps).list({});
    await listWatchFor(client, builtinResources.nodes, { namespace: "x" }).list({});
    expect(server.requests.map((r) => r.url)).toEqual(["/api/v1/configmaps", "/api/v1/nodes"]);
  });
});

describe("metadataListWatchFor (metadatainformer's list/watch)", () => {
  it("applies the scope, asks for PartialObjectMetadata(List) and names its target", async () => {
    server = await startServer((req, res) => {
      if (req.url?.includes("watch=true")) {
        res.writeHead(200, { "content-type": "application/json" });
        res.end();
        return;
      }
      sendJSON(res, 200, { kind: "PartialObjectMetadataList", apiVersion: "meta.k8s.io/v1", metadata: {}, items: [] });
    });
    client = new KubeClient({ server: server.url, username: "alice", password: "x" }, { quiet: true });
    const lw = metadataListWatchFor(client, builtinResources.secrets, { namespace: "ns1", labelSelector: "a=b" });
    expect(lw.target).toEqual({
      url: server.url,
      user: "alice",
      group: "",
      version: "v1",
      resource: "secrets",
      namespace: "ns1",
    });
    await lw.list({ resourceVersion: "0" });
    const w = await lw.watch({ resourceVersion: "3" });
    for await (const _ of w) {
      // the server ends the watch at once
    }
    expect(server.requests.map((r) => [r.url, r.headers.accept])).toEqual([
      [
        "/api/v1/namespaces/ns1/secrets?labelSelector=a%3Db&resourceVersion=0",
        "application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1,application/json",
      ],
      [
        "/api/v1/namespaces/ns1/secrets?labelSelector=a%3Db&resourceVersion=3&watch=true",
        "application/json;as=PartialObjectMetadata;g=meta.k8s.io;v=v1,application/json",
      ],
    ]);
  });
});
