import { afterEach, describe, expect, it } from "vitest";
import { sendJSON, startServer, type TestServer } from "./internal/test-server.test-util.js";
import { listWatchFor } from "./listwatch.js";
import { builtinResources } from "./resources.js";
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
    client = new KubeClient({ server: server.url });
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
    client = new KubeClient({ server: server.url });
    await listWatchFor(client, builtinResources.configmaps).list({});
    await listWatchFor(client, builtinResources.nodes, { namespace: "x" }).list({});
    expect(server.requests.map((r) => r.url)).toEqual(["/api/v1/configmaps", "/api/v1/nodes"]);
  });
});
