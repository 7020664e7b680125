import { FakeClock } from "@informer-ts/clock";
import { afterEach, describe, expect, it } from "vitest";
import {
  AGGREGATED_DISCOVERY_ACCEPT,
  AmbiguousResourceError,
  DiscoveryClient,
  NoResourceMatchError,
} from "./discovery-client.js";
import { sendJSON, startServer, type TestServer } from "./internal/test-server.test-util.js";
import { KubeClient } from "./rest-client.js";

let servers: TestServer[] = [];
let clients: KubeClient[] = [];
afterEach(async () => {
  await Promise.all(clients.map((c) => c.close()));
  await Promise.all(servers.map((s) => s.close()));
  servers = [];
  clients = [];
});

interface Res {
  name: string;
  kind: string;
  namespaced: boolean;
  singularName?: string;
  shortNames?: string[];
}

/** A legacy-discovery server; `groups` maps group → version → resources (`name` may be `x/status`). */
function legacy(core: Res[], groups: Record<string, Record<string, Res[]>>, extra?: () => void) {
  return (url: string) => {
    extra?.();
    if (url === "/api") return { kind: "APIVersions", versions: ["v1"] };
    if (url === "/apis") {
      return {
        kind: "APIGroupList",
        groups: Object.entries(groups).map(([name, versions]) => {
          const vs = Object.keys(versions).map((v) => ({ groupVersion: `${name}/${v}`, version: v }));
          return { name, versions: vs, preferredVersion: vs[0] };
        }),
      };
    }
    if (url === "/api/v1") return { kind: "APIResourceList", groupVersion: "v1", resources: core };
    const m = /^\/apis\/([^/]+)\/([^/]+)$/.exec(url);
    const list = m === null ? undefined : groups[m[1]!]?.[m[2]!];
    if (list === undefined) return undefined;
    return { kind: "APIResourceList", groupVersion: `${m![1]}/${m![2]}`, resources: list };
  };
}

async function serve(answer: (url: string, accept: string) => unknown): Promise<TestServer> {
  const s = await startServer((req, res) => {
    const out = answer(req.url ?? "", String(req.headers.accept ?? ""));
    if (out === undefined) {
      sendJSON(res, 404, { kind: "Status", apiVersion: "v1", status: "Failure", code: 404, reason: "NotFound" });
    } else sendJSON(res, 200, out);
  });
  servers.push(s);
  return s;
}

function kube(url: string): KubeClient {
  const c = new KubeClient({ server: url }, { rateLimiter: null, quiet: true });
  clients.push(c);
  return c;
}

const CORE: Res[] = [
  { name: "configmaps", kind: "ConfigMap", namespaced: true, singularName: "configmap", shortNames: ["cm"] },
  { name: "pods", kind: "Pod", namespaced: true, singularName: "pod", shortNames: ["po"] },
  { name: "pods/status", kind: "Pod", namespaced: true },
  { name: "events", kind: "Event", namespaced: true, singularName: "event", shortNames: ["ev"] },
  { name: "namespaces", kind: "Namespace", namespaced: false, singularName: "namespace", shortNames: ["ns"] },
];
const GROUPS = {
  apps: {
    v1: [
      { name: "deployments", kind: "Deployment", namespaced: true, singularName: "deployment", shortNames: ["deploy"] },
      { name: "deployments/status", kind: "Deployment", namespaced: true },
      { name: "deployments/scale", kind: "Scale", namespaced: true },
    ],
  },
  "events.k8s.io": {
    v1: [{ name: "events", kind: "Event", namespaced: true, singularName: "event", shortNames: ["ev"] }],
  },
  "a.example.com": { v1: [{ name: "widgets", kind: "Widget", namespaced: true, singularName: "widget" }] },
  "b.example.com": { v1: [{ name: "widgets", kind: "Widget", namespaced: false, singularName: "widget" }] },
};

describe("DiscoveryClient over legacy discovery", () => {
  it("resolves plural, singular, kind, short and group-qualified names to descriptors with subresources", async () => {
    const s = await serve(legacy(CORE, GROUPS));
    const d = new DiscoveryClient(kube(s.url));
    const deploy = await d.resolve("deploy");
    expect(deploy).toMatchObject({
      group: "apps",
      version: "v1",
      resource: "deployments",
      kind: "Deployment",
      namespaced: true,
      subresources: ["status", "scale"],
      preferred: true,
    });
    for (const name of [
      "deployments",
      "deployment",
      "Deployment",
      "deployments.apps",
      "deployments.v1.apps",
      "deploy.apps",
    ]) {
      expect((await d.resolve(name)).resource, name).toBe("deployments");
    }
    expect(await d.resolve("ns")).toMatchObject({ resource: "namespaces", namespaced: false, subresources: [] });
    expect(await d.resolve("cm")).toMatchObject({ group: "", resource: "configmaps" });
    expect(await d.resolve("pods.v1")).toMatchObject({ group: "", resource: "pods", subresources: ["status"] });
    // The core group wins over events.k8s.io, as kubectl's RESTMapper priority has it; qualified forms pick the group.
    expect(await d.resolve("events")).toMatchObject({ group: "" });
    expect(await d.resolve("events.events.k8s.io")).toMatchObject({ group: "events.k8s.io" });
    expect(await d.resolve("widgets.b.example.com")).toMatchObject({ group: "b.example.com", namespaced: false });
    expect(d.aggregated).toBe(false);
    // One fetch served every call: /api, /apis, and one resource list per group version.
    expect(s.requests.map((r) => r.url).sort()).toEqual(
      [
        "/api",
        "/apis",
        "/api/v1",
        "/apis/apps/v1",
        "/apis/events.k8s.io/v1",
        "/apis/a.example.com/v1",
        "/apis/b.example.com/v1",
      ].sort(),
    );
    expect(s.requests[0]!.headers.accept).toBe(AGGREGATED_DISCOVERY_ACCEPT);
  });

  it("a name two non-core groups serve is ambiguous; an unknown one is NoResourceMatchError after one refresh", async () => {
    const s = await serve(legacy(CORE, GROUPS));
    const d = new DiscoveryClient(kube(s.url));
    const err = await d.resolve("widgets").catch((e: unknown) => e);
    expect(err).toBeInstanceOf(AmbiguousResourceError);
    expect((err as Error).message).toMatch(
      /widgets\.a\.example\.com, widgets\.b\.example\.com; qualify it with its group/,
    );
    const before = s.requests.length;
    await expect(d.resolve("gadgets")).rejects.toThrow(NoResourceMatchError);
    await expect(d.resolve("gadgets")).rejects.toThrow(`the server doesn't have a resource type "gadgets"`);
    // Each miss on a cached snapshot refetched discovery once (7 requests per fetch).
    expect(s.requests.length - before).toBe(14);
    await expect(d.resolve("")).rejects.toThrow(NoResourceMatchError);
  });

  it("an unknown name refreshes the cache and finds a resource created since (a new CRD)", async () => {
    const groups: Record<string, Record<string, Res[]>> = { apps: GROUPS.apps };
    const s = await serve(legacy(CORE, groups));
    const d = new DiscoveryClient(kube(s.url));
    await d.resolve("deployments");
    groups["stable.example.com"] = {
      v1: [{ name: "crontabs", kind: "CronTab", namespaced: true, shortNames: ["ct"] }],
    };
    expect(await d.resolve("ct")).toMatchObject({ group: "stable.example.com", resource: "crontabs", kind: "CronTab" });
  });

  it("caches for the TTL on the injected clock, then fetches again", async () => {
    let fetches = 0;
    const s = await serve(legacy(CORE, {}, () => fetches++));
    const clock = new FakeClock();
    const d = new DiscoveryClient(kube(s.url), { clock, ttlMs: 60_000 });
    await d.resolve("pods");
    const perFetch = fetches;
    await d.resolve("cm");
    await clock.step(59_999);
    await d.resolve("pods");
    expect(fetches).toBe(perFetch);
    await clock.step(1);
    await d.resolve("pods");
    expect(fetches).toBe(2 * perFetch);
    d.invalidate();
    await d.serverResources();
    expect(fetches).toBe(3 * perFetch);
  });

  it("concurrent resolves share one fetch; a group version that 404s is skipped", async () => {
    const groups = { ...GROUPS, "gone.example.com": { v1: [] as Res[] } };
    const answer = legacy(CORE, groups);
    const s = await serve((url) => (url === "/apis/gone.example.com/v1" ? undefined : answer(url)));
    const d = new DiscoveryClient(kube(s.url));
    const all = await Promise.all([d.resolve("pods"), d.resolve("deploy"), d.serverResources()]);
    expect(all[0].resource).toBe("pods");
    expect(all[2].some((r) => r.group === "gone.example.com")).toBe(false);
    expect(s.requests.filter((r) => r.url === "/apis")).toHaveLength(1);
  });

  it("rejects a bad TTL", () => {
    expect(() => new DiscoveryClient(kube("http://127.0.0.1:1"), { ttlMs: -1 })).toThrow(/ttlMs must be ≥ 0/);
  });
});

describe("DiscoveryClient over aggregated discovery", () => {
  const aggregated = (core: boolean) => ({
    kind: "APIGroupDiscoveryList",
    apiVersion: "apidiscovery.k8s.io/v2",
    items: core
      ? [
          {
            metadata: { creationTimestamp: null },
            versions: [
              {
                version: "v1",
                resources: [
                  {
                    resource: "pods",
                    responseKind: { group: "", version: "v1", kind: "Pod" },
                    scope: "Namespaced",
                    singularResource: "pod",
                    shortNames: ["po"],
                    verbs: ["get", "list", "watch"],
                    subresources: [{ subresource: "status" }, { subresource: "log" }],
                  },
                ],
              },
            ],
          },
        ]
      : [
          {
            metadata: { name: "autoscaling" },
            versions: [
              {
                version: "v2",
                resources: [
                  {
                    resource: "horizontalpodautoscalers",
                    responseKind: { group: "autoscaling", version: "v2", kind: "HorizontalPodAutoscaler" },
                    scope: "Namespaced",
                    singularResource: "horizontalpodautoscaler",
                    shortNames: ["hpa"],
                    verbs: ["get"],
                    subresources: [{ subresource: "status" }],
                  },
                ],
              },
              {
                version: "v1",
                resources: [
                  {
                    resource: "horizontalpodautoscalers",
                    responseKind: { group: "autoscaling", version: "v1", kind: "HorizontalPodAutoscaler" },
                    scope: "Namespaced",
                    singularResource: "horizontalpodautoscaler",
                    shortNames: ["hpa"],
                    verbs: ["get"],
                  },
                ],
              },
            ],
          },
        ],
  });

  it("uses two requests, takes the first version as preferred, and resolves explicit versions", async () => {
    const s = await serve((url, accept) => {
      expect(accept).toBe(AGGREGATED_DISCOVERY_ACCEPT);
      return url === "/api" ? aggregated(true) : url === "/apis" ? aggregated(false) : undefined;
    });
    const d = new DiscoveryClient(kube(s.url));
    expect(await d.resolve("hpa")).toMatchObject({ group: "autoscaling", version: "v2", subresources: ["status"] });
    expect(await d.resolve("hpa.v1.autoscaling")).toMatchObject({ version: "v1", preferred: false });
    expect(await d.resolve("po")).toMatchObject({
      group: "",
      version: "v1",
      kind: "Pod",
      subresources: ["status", "log"],
    });
    expect(d.aggregated).toBe(true);
    expect(s.requests.map((r) => r.url).sort()).toEqual(["/api", "/apis"]);
  });

  it("falls back to legacy documents when the server refuses the aggregated type with 406", async () => {
    const answer = legacy(CORE, GROUPS);
    const s = await startServer((req, res) => {
      const accept = String(req.headers.accept ?? "");
      if (accept.includes("apidiscovery")) {
        sendJSON(res, 406, { kind: "Status", apiVersion: "v1", status: "Failure", code: 406, reason: "NotAcceptable" });
        return;
      }
      sendJSON(res, 200, answer(req.url ?? ""));
    });
    servers.push(s);
    const d = new DiscoveryClient(kube(s.url));
    expect(await d.resolve("deploy")).toMatchObject({ group: "apps" });
    expect(d.aggregated).toBe(false);
  });
});

describe("DiscoveryClient cancellation", () => {
  it("a caller that aborts does not fail the others sharing the fetch, and the fetch still fills the cache", async () => {
    let release!: () => void;
    const gate = new Promise<void>((r) => {
      release = r;
    });
    const answer = legacy(CORE, GROUPS);
    const s = await startServer(async (req, res) => {
      if (req.url === "/apis") await gate;
      sendJSON(res, 200, answer(req.url ?? ""));
    });
    servers.push(s);
    const d = new DiscoveryClient(kube(s.url));
    const ac = new AbortController();
    const abandoned = d.resolve("pods", ac.signal);
    const patient = d.resolve("deploy");
    const reason = new Error("caller gave up");
    ac.abort(reason);
    await expect(abandoned).rejects.toBe(reason);
    release();
    expect((await patient).resource).toBe("deployments");
    const before = s.requests.length;
    expect((await d.resolve("cm")).resource).toBe("configmaps");
    expect(s.requests.length).toBe(before); // served from the cache the shared fetch filled
    await expect(d.resolve("pods", AbortSignal.abort(reason))).rejects.toBe(reason); // aborted before the call
  });
});
