import type { IncomingMessage, ServerResponse } from "node:http";
import {
  type ListerWatcher,
  newSharedIndexInformer,
  type TransformFunc,
  withManagedFields,
  withNamespace,
  withTransform,
} from "@informer-ts/cache";
import { newMetadataSharedInformerFactory, newTypedSharedInformerFactory } from "@informer-ts/controller";
import { afterEach, describe, expect, it } from "vitest";
import { resources } from "./builtin-resources.js";
import { sendJSON, startServer, type TestServer } from "./internal/test-server.test-util.js";
import type { PartialObjectMetadata } from "./object-types.js";
import { KubeClient, METADATA_ACCEPT, METADATA_LIST_ACCEPT } from "./rest-client.js";

let servers: TestServer[] = [];
let clients: KubeClient[] = [];
afterEach(async () => {
  await Promise.all(clients.map((c) => c.close()));
  await Promise.all(servers.map((s) => s.close()));
  servers = [];
  clients = [];
});

const full = {
  kind: "Secret",
  apiVersion: "v1",
  metadata: {
    name: "s1",
    namespace: "prod",
    resourceVersion: "4",
    labels: { a: "b" },
    managedFields: [{ manager: "kubectl", operation: "Apply", apiVersion: "v1", fieldsType: "FieldsV1" }],
  },
  data: { password: "c2VjcmV0" },
};
const partial = { kind: "PartialObjectMetadata", apiVersion: "meta.k8s.io/v1", metadata: full.metadata };
const { managedFields: _managedFields, ...strippedMetadata } = full.metadata;
const stripped = { ...partial, metadata: strippedMetadata };
const END = { "k8s.io/initial-events-end": "true" };

/** Serves one Secret: metadata-only when asked with `as=PartialObjectMetadata[List]`, full otherwise. */
function handler(req: IncomingMessage, res: ServerResponse): void {
  const url = req.url ?? "";
  const metadata = String(req.headers.accept ?? "").includes("as=PartialObjectMetadata");
  const obj = metadata ? partial : full;
  if (!url.includes("watch=true")) {
    const kind = metadata ? "PartialObjectMetadataList" : "SecretList";
    sendJSON(res, 200, { kind, apiVersion: "v1", metadata: { resourceVersion: "5" }, items: [obj] });
    return;
  }
  res.writeHead(200, { "content-type": "application/json" });
  if (url.includes("sendInitialEvents=true")) {
    res.write(`${JSON.stringify({ type: "ADDED", object: obj })}\n`);
    const bookmark = {
      kind: obj.kind,
      apiVersion: obj.apiVersion,
      metadata: { resourceVersion: "5", annotations: END },
    };
    res.write(`${JSON.stringify({ type: "BOOKMARK", object: bookmark })}\n`);
  }
}

async function setup(): Promise<{ s: TestServer; c: KubeClient }> {
  const s = await startServer(handler);
  servers.push(s);
  const c = new KubeClient({ server: s.url }, { rateLimiter: null, quiet: true });
  clients.push(c);
  return { s, c };
}

describe("newMetadataSharedInformerFactory", () => {
  it("informers list and watch metadata only, scoped by the factory's namespace, and cache PartialObjectMetadata without managedFields", async () => {
    const { s, c } = await setup();
    const factory = newMetadataSharedInformerFactory(c, 0, withNamespace("prod"));
    const informer = factory.informerFor(resources.secrets);
    expect(factory.informerFor(resources.secrets)).toBe(informer); // shared per resource
    const ac = new AbortController();
    factory.start(ac.signal);
    const result = await factory.waitForCacheSync(ac.signal);
    expect(result.err).toBeUndefined();
    expect(informer.getIndexer().list()).toEqual([stripped]);
    ac.abort();
    await factory.shutdown();
    expect(s.requests.length).toBeGreaterThan(0);
    for (const r of s.requests) {
      expect(r.url.startsWith("/api/v1/namespaces/prod/secrets")).toBe(true);
      expect([METADATA_ACCEPT, METADATA_LIST_ACCEPT]).toContain(r.headers.accept);
    }
  });

  it("keeps managedFields with withManagedFields()", async () => {
    const { c } = await setup();
    const factory = newMetadataSharedInformerFactory(c, 0, withNamespace("prod"), withManagedFields());
    const informer = factory.informerFor(resources.secrets);
    const ac = new AbortController();
    factory.start(ac.signal);
    expect((await factory.waitForCacheSync(ac.signal)).err).toBeUndefined();
    expect(informer.getIndexer().list()).toEqual([partial]);
    ac.abort();
    await factory.shutdown();
  });

  it("a transform of the user's replaces the default", async () => {
    const { c } = await setup();
    const mark = (o: PartialObjectMetadata): PartialObjectMetadata => ({ ...o, metadata: { ...o.metadata, uid: "u" } });
    const factory = newMetadataSharedInformerFactory(c, 0, withNamespace("prod"), withTransform(mark));
    const informer = factory.informerFor(resources.secrets);
    const ac = new AbortController();
    factory.start(ac.signal);
    expect((await factory.waitForCacheSync(ac.signal)).err).toBeUndefined();
    expect(informer.getIndexer().list()).toEqual([{ ...partial, metadata: { ...partial.metadata, uid: "u" } }]);
    ac.abort();
    await factory.shutdown();
  });
});

describe("metadata LISTs decoded without managedFields", () => {
  it("listMetadata leaves managedFields out while decoding only when asked", async () => {
    const { c } = await setup();
    const dropped = await c.listMetadata(resources.secrets, { namespace: "prod" }, undefined, {
      dropManagedFields: true,
    });
    expect(dropped.items).toEqual([stripped]);
    expect((await c.listMetadata(resources.secrets, { namespace: "prod" })).items).toEqual([partial]);
  });

  it("the factory's LISTs drop them while its default strip is in effect, and keep them otherwise", async () => {
    const { c } = await setup();
    const listed = async (...transforms: TransformFunc<PartialObjectMetadata>[]) => {
      let lw: ListerWatcher<PartialObjectMetadata> | undefined;
      const factory = newMetadataSharedInformerFactory(
        c,
        0,
        withNamespace("prod"),
        ...transforms.map((t) => withTransform<PartialObjectMetadata>(t)),
      );
      factory.informerFor(resources.secrets, (w) => {
        lw = w;
        return newSharedIndexInformer(w);
      });
      return (await lw!.list({})).items;
    };
    expect(await listed()).toEqual([stripped]);
    const mark = (o: PartialObjectMetadata): PartialObjectMetadata => o;
    expect(await listed(mark)).toEqual([partial]);
    let keep: ListerWatcher<PartialObjectMetadata> | undefined;
    newMetadataSharedInformerFactory(c, 0, withNamespace("prod"), withManagedFields()).informerFor(
      resources.secrets,
      (w) => {
        keep = w;
        return newSharedIndexInformer(w);
      },
    );
    expect((await keep!.list({})).items).toEqual([partial]);
  });
});

describe("newTypedSharedInformerFactory", () => {
  it("informers list and watch full objects through the client", async () => {
    const { s, c } = await setup();
    const factory = newTypedSharedInformerFactory(c, 0);
    const informer = factory.informerFor(resources.secrets);
    const ac = new AbortController();
    factory.start(ac.signal);
    expect((await factory.waitForCacheSync(ac.signal)).err).toBeUndefined();
    const [secret] = informer.getIndexer().list();
    expect(secret?.data?.password).toBe("c2VjcmV0");
    ac.abort();
    await factory.shutdown();
    expect(s.requests.every((r) => r.headers.accept === "application/json, */*")).toBe(true);
  });
});
