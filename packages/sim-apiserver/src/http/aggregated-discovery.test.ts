// Aggregated discovery (`/api`, `/apis` as `APIGroupDiscoveryList`): the document built from the legacy discovery
// data, content negotiation, and the ETag handling of upstream's
// staging/src/k8s.io/apiserver/pkg/endpoints/discovery/aggregated/handler_test.go, over HTTP on the real engine.
import { FakeClock, settle } from "@informer-ts/clock";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { crdWithSpec, WIDGETS } from "../engine/resources.test-util.js";
import { DEFAULT_VERBS, type ServedResource } from "../engine/served-resource.js";
import { SimApiServer } from "../engine/sim-apiserver.js";
import {
  type APIGroupDiscoveryList,
  aggregatedDiscovery,
  checkLegacyDiscoveryAccept,
  negotiateAggregatedDiscovery,
} from "./aggregated-discovery.js";
import { apiGroupList, apiResourceList, apiVersions } from "./discovery.js";
import { EngineBackend } from "./engine-backend.js";
import { type EngineServer, startEngineServer } from "./engine-server.test-util.js";
import { fetchRaw } from "./http-client.test-util.js";
import { SimHttpServer } from "./server.js";

const V2 = "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList";
const V2BETA1 = "application/json;g=apidiscovery.k8s.io;v=v2beta1;as=APIGroupDiscoveryList";
/** What client-go (1.30+) and kubectl send for `/api` and `/apis`. */
const CLIENT_GO = `${V2},${V2BETA1},application/json`;
const json = { "content-type": "application/json" };

const res = (
  group: string,
  version: string,
  resource: string,
  kind: string,
  extra: Partial<ServedResource> = {},
): ServedResource => ({
  group,
  version,
  resource,
  kind,
  singularName: kind.toLowerCase(),
  namespaced: true,
  verbs: DEFAULT_VERBS,
  ...extra,
});

describe("aggregated discovery document", () => {
  const served = [
    res("", "v1", "pods", "Pod", { shortNames: ["po"], categories: ["all"], subresources: ["status"] }),
    res("", "v1", "namespaces", "Namespace", { namespaced: false }),
    res("apps", "v1", "deployments", "Deployment", { subresources: ["status", "scale"] }),
    { ...WIDGETS, version: "v1beta1", subresources: ["status"] } as ServedResource,
    WIDGETS,
  ];

  it("/api: the unnamed core group, each legacy subresource folded into its parent", () => {
    const doc = aggregatedDiscovery(served, "api");
    expect(doc.kind).toBe("APIGroupDiscoveryList");
    expect(doc.apiVersion).toBe("apidiscovery.k8s.io/v2");
    expect(doc.items).toHaveLength(1);
    const core = doc.items[0]!;
    expect(core.metadata).toEqual({ creationTimestamp: null });
    expect(core.versions.map((v) => [v.version, v.freshness])).toEqual([["v1", "Current"]]);
    const [namespaces, pods] = core.versions[0]!.resources;
    expect(namespaces).toEqual({
      resource: "namespaces",
      responseKind: { group: "", version: "", kind: "Namespace" },
      scope: "Cluster",
      singularResource: "namespace",
      verbs: [...DEFAULT_VERBS],
      subresources: [
        { subresource: "finalize", responseKind: { group: "", version: "", kind: "Namespace" }, verbs: ["update"] },
      ],
    });
    expect(pods).toMatchObject({
      resource: "pods",
      scope: "Namespaced",
      singularResource: "pod",
      shortNames: ["po"],
      categories: ["all"],
    });
    expect(pods?.subresources?.map((s) => [s.subresource, s.responseKind])).toEqual([
      ["binding", { group: "", version: "", kind: "Binding" }],
      ["eviction", { group: "policy", version: "v1", kind: "Eviction" }],
      ["status", { group: "", version: "", kind: "Pod" }],
    ]);
  });

  it("/apis: named groups, versions preferred first, custom resources carrying their own group version", () => {
    const doc = aggregatedDiscovery(served, "apis", "v2beta1");
    expect(doc.apiVersion).toBe("apidiscovery.k8s.io/v2beta1");
    expect(doc.items.map((g) => [g.metadata.name, g.versions.map((v) => v.version)])).toEqual([
      ["apps", ["v1"]],
      ["example.com", ["v1", "v1beta1"]],
    ]);
    const deployments = doc.items[0]!.versions[0]!.resources[0]!;
    expect(deployments.responseKind).toEqual({ group: "", version: "", kind: "Deployment" });
    expect(deployments.subresources).toEqual([
      {
        subresource: "status",
        responseKind: { group: "", version: "", kind: "Deployment" },
        verbs: ["get", "patch", "update"],
      },
      {
        subresource: "scale",
        responseKind: { group: "autoscaling", version: "v1", kind: "Scale" },
        verbs: ["get", "patch", "update"],
      },
    ]);
    const [v1, v1beta1] = doc.items[1]!.versions;
    expect(v1!.resources[0]).toMatchObject({
      resource: "widgets",
      responseKind: { group: "example.com", version: "v1" },
    });
    expect(v1!.resources[0]!.subresources).toBeUndefined();
    expect(v1beta1!.resources[0]!.subresources).toEqual([
      {
        subresource: "status",
        responseKind: { group: "example.com", version: "v1beta1", kind: "Widget" },
        verbs: ["get", "patch", "update"],
      },
    ]);
  });

  it("no resources: an empty list", () => {
    expect(aggregatedDiscovery([], "apis").items).toEqual([]);
  });

  it("property: unfolding the document gives back every legacy APIResourceList entry, in the legacy order", () => {
    const arbResource = fc.record({
      group: fc.constantFrom("", "apps", "example.com", "z.example.com"),
      version: fc.constantFrom("v1", "v1beta1", "v2", "v1alpha1"),
      resource: fc.constantFrom("pods", "namespaces", "serviceaccounts", "widgets", "gadgets"),
      namespaced: fc.boolean(),
      custom: fc.boolean(),
      shortNames: fc.subarray(["a", "b"]),
      categories: fc.subarray(["all", "api-extensions"]),
      subresources: fc.subarray(["status", "scale", "approval"]),
    });
    fc.assert(
      fc.property(fc.uniqueArray(arbResource, { selector: (r) => `${r.group}/${r.version}/${r.resource}` }), (rs) => {
        const served = rs.map((r) => res(r.group, r.version, r.resource, `K${r.resource}`, r) as ServedResource);
        const legacy: string[] = [];
        const unfolded: string[] = [];
        const entry = (gv: string, name: string, e: { namespaced?: boolean; kind: string; verbs: readonly string[] }) =>
          `${gv} ${name} ${e.kind} ${e.verbs.join(",")}${e.namespaced === undefined ? "" : ` ${e.namespaced}`}`;
        const core = (apiVersions(served, "") as { versions: string[] }).versions;
        const groups = (apiGroupList(served) as { groups: { name: string; versions: { version: string }[] }[] }).groups;
        const gvs = [
          ...core.map((v) => ["", v] as const),
          ...groups.flatMap((g) => g.versions.map((v) => [g.name, v.version] as const)),
        ];
        for (const [g, v] of gvs) {
          const list = apiResourceList(served, g, v) as
            | { resources: { name: string; namespaced: boolean; kind: string; verbs: string[] }[] }
            | undefined;
          for (const r of list?.resources ?? []) {
            legacy.push(entry(`${g}/${v}`, r.name, r.name.includes("/") ? { kind: r.kind, verbs: r.verbs } : r));
          }
        }
        for (const doc of [aggregatedDiscovery(served, "api"), aggregatedDiscovery(served, "apis")]) {
          for (const grp of doc.items) {
            for (const ver of grp.versions) {
              for (const r of ver.resources) {
                const gv = `${grp.metadata.name ?? ""}/${ver.version}`;
                unfolded.push(
                  entry(gv, r.resource, { ...r.responseKind, namespaced: r.scope === "Namespaced", verbs: r.verbs }),
                );
                for (const sub of r.subresources ?? []) {
                  unfolded.push(
                    entry(gv, `${r.resource}/${sub.subresource}`, { kind: sub.responseKind.kind, verbs: sub.verbs }),
                  );
                }
              }
            }
          }
        }
        // the legacy list orders a resource's subresources right after it, as the fold does
        expect(unfolded).toEqual(legacy);
      }),
    );
  });
});

describe("aggregated discovery negotiation (wrapper.go, negotiation.go)", () => {
  const both = ["v2", "v2beta1"] as const;
  it.each([
    ["client-go's list", CLIENT_GO, both, "v2"],
    ["v2beta1 first", `${V2BETA1},${V2}`, both, "v2beta1"],
    ["v2 not served (1.28)", CLIENT_GO, ["v2beta1"] as const, "v2beta1"],
    ["nothing served (1.22)", CLIENT_GO, [] as const, undefined],
    ["plain JSON first", `application/json,${V2}`, both, undefined],
    ["no Accept", undefined, both, undefined],
    ["*/* with the parameters", "*/*;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList", both, "v2"],
    [
      "an unknown version is skipped",
      `application/json;g=apidiscovery.k8s.io;v=v3;as=APIGroupDiscoveryList,${V2}`,
      both,
      "v2",
    ],
    [
      "protobuf is not served: skipped",
      `application/vnd.kubernetes.protobuf;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList,${V2}`,
      both,
      "v2",
    ],
    ["a Table is not discovery", "application/json;as=Table;g=meta.k8s.io;v=v1", both, undefined],
  ])("%s", (_name, accept, served, want) => {
    expect(negotiateAggregatedDiscovery(accept, served)).toBe(want);
  });

  it.each([
    ["only an unserved transform", "application/json;g=apidiscovery.k8s.io;v=v3;as=APIGroupDiscoveryList", 406],
    ["only a Table", "application/json;as=Table;g=meta.k8s.io;v=v1", 406],
    ["a transform, then plain JSON", "application/json;as=Table;g=meta.k8s.io;v=v1,application/json", undefined],
    ["YAML (answered as JSON)", "application/yaml", undefined],
    ["no Accept", undefined, undefined],
  ])("legacy document: %s", (_name, accept, code) => {
    let got: number | undefined;
    try {
      checkLegacyDiscoveryAccept(accept);
    } catch (err) {
      got = (err as { status?: { code?: number } }).status?.code;
    }
    expect(got).toBe(code);
  });
});

describe("aggregated discovery over HTTP (handler_test.go)", () => {
  let s: EngineServer;
  const clock = new FakeClock(Date.parse("2026-01-01T00:00:00Z"));
  beforeAll(async () => {
    s = await startEngineServer(clock);
  });
  afterAll(async () => {
    await s.close();
  });
  const get = (path: string, accept: string, etag?: string) =>
    fetchRaw(`${s.url}${path}`, { headers: { accept, ...(etag !== undefined && { "if-none-match": etag }) } });

  it("TestBasicResponse: the media type asked for, an ETag, the list as JSON", async () => {
    const r = await get("/apis", CLIENT_GO);
    expect(r.status).toBe(200);
    expect(r.headers["content-type"]).toBe(V2);
    expect(r.headers.etag).toMatch(/^"[0-9A-F]{128}"$/);
    expect(r.headers.vary).toBe("Accept");
    expect(r.headers["cache-control"]).toBe("public");
    const doc = JSON.parse(r.text) as APIGroupDiscoveryList;
    expect(doc.apiVersion).toBe("apidiscovery.k8s.io/v2");
    expect(doc.items.map((g) => g.metadata.name)).toContain("apps");
    expect(r.text).toBe(`${JSON.stringify(aggregatedDiscovery(s.engine.resources(), "apis"))}\n`);
  });

  it("TestV2Beta1SkewSupport: v2beta1 is still served, with the same ETag", async () => {
    const v2 = await get("/api", V2);
    const beta = await get("/api", V2BETA1);
    expect(beta.status).toBe(200);
    expect(beta.headers["content-type"]).toBe(V2BETA1);
    expect((JSON.parse(beta.text) as APIGroupDiscoveryList).apiVersion).toBe("apidiscovery.k8s.io/v2beta1");
    expect(beta.headers.etag).toBe(v2.headers.etag);
  });

  it("TestEtagMatching: If-None-Match with the current ETag is 304 without a body", async () => {
    const first = await get("/apis", V2);
    const second = await get("/apis", V2, first.headers.etag as string);
    expect(second.status).toBe(304);
    expect(second.headers.etag).toBe(first.headers.etag);
    expect(second.text).toBe("");
  });

  it("TestEtagNonMatching: a wrong ETag gets the document again", async () => {
    const first = await get("/apis", V2);
    const second = await get("/apis", V2, '"wrongetag"');
    expect(second.status).toBe(200);
    expect(second.headers.etag).toBe(first.headers.etag);
  });

  it("TestEtagOutdated, TestEtagConsistent: a CRD's writes change the ETag; deleting it restores the initial one", async () => {
    const initial = await get("/apis", V2);
    const crd = crdWithSpec("etag.example.com", "gadgets", "Gadget", { type: "object" });
    const crdPath = "/apis/apiextensions.k8s.io/v1/customresourcedefinitions";
    expect(
      (await fetchRaw(`${s.url}${crdPath}`, { method: "POST", headers: json, body: JSON.stringify(crd) })).status,
    ).toBe(201);
    const changed = await get("/apis", V2, initial.headers.etag as string);
    expect(changed.status).toBe(200);
    expect(changed.headers.etag).not.toBe(initial.headers.etag);
    const groups = (JSON.parse(changed.text) as APIGroupDiscoveryList).items.map((g) => g.metadata.name);
    expect(groups).toContain("etag.example.com");
    expect((await fetchRaw(`${s.url}${crdPath}/gadgets.etag.example.com`, { method: "DELETE" })).status).toBe(200);
    let etag = "";
    for (let i = 0; i < 20 && etag !== initial.headers.etag; i++) {
      await settle();
      await clock.step(100);
      etag = (await get("/apis", V2)).headers.etag as string;
    }
    expect(etag).toBe(initial.headers.etag);
    expect((await get("/apis", V2, etag)).status).toBe(304);
  });

  it("the legacy documents without the media type; 406 for an unserved transform only", async () => {
    const legacy = await get("/apis", "application/json");
    expect(legacy.status).toBe(200);
    expect(legacy.headers["content-type"]).toBe("application/json");
    expect((JSON.parse(legacy.text) as { kind: string }).kind).toBe("APIGroupList");
    const refused = await get("/api", "application/json;g=apidiscovery.k8s.io;v=v3;as=APIGroupDiscoveryList");
    expect(refused.status).toBe(406);
    expect(JSON.parse(refused.text)).toMatchObject({
      reason: "NotAcceptable",
      message:
        "only the following media types are accepted: application/json, application/yaml, application/vnd.kubernetes.protobuf",
    });
    // group versions have no aggregated form: their APIResourceList answers whatever the Accept header says
    expect((await get("/apis/apps/v1", CLIENT_GO)).headers["content-type"]).toBe("application/json");
  });

  it("a release before aggregated discovery (1.22) answers the legacy documents", async () => {
    const engine = new SimApiServer({ clock, kubeVersion: "1.22" });
    const server = new SimHttpServer({ backend: new EngineBackend(engine), clock });
    const url = await server.start();
    try {
      const r = await fetchRaw(`${url}/apis`, { headers: { accept: CLIENT_GO } });
      expect(r.headers["content-type"]).toBe("application/json");
      expect((JSON.parse(r.text) as { kind: string }).kind).toBe("APIGroupList");
    } finally {
      await server.close();
      engine.stop();
    }
  });
});
