// The HTTP face on the real engine (issue #4 items 4 and 7): every built-in resource and a custom resource served
// end to end with discovery, the exact Status bodies and headers of the reference's Status table, health endpoints,
// and request accounting (programmatic, /metrics, audit and httplog lines). Virtual time: a FakeClock drives the
// engine, so the 3 s freshness wait before a 504 is stepped, not slept.
import { failureStatus as status } from "@informer-ts/apimachinery";
import { FakeClock, settle } from "@informer-ts/clock";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { BUILTIN_RESOURCES, type SimResource } from "../engine/resources.js";
import { WIDGETS } from "../engine/resources.test-util.js";
import { configMap, type EngineServer, startEngineServer } from "./engine-server.test-util.js";
import { fetchRaw, openStream, type RawResponse, type RequestOptions } from "./http-client.test-util.js";

const json = { "content-type": "application/json" };
const CM = "/api/v1/namespaces/default/configmaps";

function collectionPath(r: SimResource, ns = "default"): string {
  const gv = r.group === "" ? `/api/${r.version}` : `/apis/${r.group}/${r.version}`;
  return r.namespaced ? `${gv}/namespaces/${ns}/${r.resource}` : `${gv}/${r.resource}`;
}

function apiVersion(r: SimResource): string {
  return r.group === "" ? r.version : `${r.group}/${r.version}`;
}

/** Keeps stepping virtual time until the request settles (the engine waits on the FakeClock). */
async function withTime(clock: FakeClock, p: Promise<RawResponse>): Promise<RawResponse> {
  let done = false;
  void p.finally(() => {
    done = true;
  });
  for (let i = 0; i < 50 && !done; i++) {
    await settle();
    if (!done) await clock.step(250);
  }
  return p;
}

let s: EngineServer;
let clock: FakeClock;

/**
 * `kubectl api-resources` of kube-apiserver v1.34 with default gates, preferred versions, as `<gv>/<resource>`, plus
 * the one non-preferred version a v1.34 cluster serves of these (`autoscaling/v1` horizontalpodautoscalers).
 */
const KUBE_134_RESOURCES = [
  "admissionregistration.k8s.io/v1/mutatingwebhookconfigurations",
  "admissionregistration.k8s.io/v1/validatingadmissionpolicies",
  "admissionregistration.k8s.io/v1/validatingadmissionpolicybindings",
  "admissionregistration.k8s.io/v1/validatingwebhookconfigurations",
  "apiextensions.k8s.io/v1/customresourcedefinitions",
  "apiregistration.k8s.io/v1/apiservices",
  "apps/v1/controllerrevisions",
  "apps/v1/daemonsets",
  "apps/v1/deployments",
  "apps/v1/replicasets",
  "apps/v1/statefulsets",
  "authentication.k8s.io/v1/selfsubjectreviews",
  "authentication.k8s.io/v1/tokenreviews",
  "authorization.k8s.io/v1/localsubjectaccessreviews",
  "authorization.k8s.io/v1/selfsubjectaccessreviews",
  "authorization.k8s.io/v1/selfsubjectrulesreviews",
  "authorization.k8s.io/v1/subjectaccessreviews",
  "autoscaling/v1/horizontalpodautoscalers",
  "autoscaling/v2/horizontalpodautoscalers",
  "batch/v1/cronjobs",
  "batch/v1/jobs",
  "certificates.k8s.io/v1/certificatesigningrequests",
  "coordination.k8s.io/v1/leases",
  "discovery.k8s.io/v1/endpointslices",
  "events.k8s.io/v1/events",
  "flowcontrol.apiserver.k8s.io/v1/flowschemas",
  "flowcontrol.apiserver.k8s.io/v1/prioritylevelconfigurations",
  "networking.k8s.io/v1/ingressclasses",
  "networking.k8s.io/v1/ingresses",
  "networking.k8s.io/v1/ipaddresses",
  "networking.k8s.io/v1/networkpolicies",
  "networking.k8s.io/v1/servicecidrs",
  "node.k8s.io/v1/runtimeclasses",
  "policy/v1/poddisruptionbudgets",
  "rbac.authorization.k8s.io/v1/clusterrolebindings",
  "rbac.authorization.k8s.io/v1/clusterroles",
  "rbac.authorization.k8s.io/v1/rolebindings",
  "rbac.authorization.k8s.io/v1/roles",
  "resource.k8s.io/v1/deviceclasses",
  "resource.k8s.io/v1/resourceclaims",
  "resource.k8s.io/v1/resourceclaimtemplates",
  "resource.k8s.io/v1/resourceslices",
  "scheduling.k8s.io/v1/priorityclasses",
  "storage.k8s.io/v1/csidrivers",
  "storage.k8s.io/v1/csinodes",
  "storage.k8s.io/v1/csistoragecapacities",
  "storage.k8s.io/v1/storageclasses",
  "storage.k8s.io/v1/volumeattachments",
  "storage.k8s.io/v1/volumeattributesclasses",
  "v1/configmaps",
  "v1/endpoints",
  "v1/events",
  "v1/limitranges",
  "v1/namespaces",
  "v1/nodes",
  "v1/persistentvolumeclaims",
  "v1/persistentvolumes",
  "v1/pods",
  "v1/podtemplates",
  "v1/replicationcontrollers",
  "v1/resourcequotas",
  "v1/secrets",
  "v1/serviceaccounts",
  "v1/services",
];
const KUBE_134_GROUPS = [
  ...new Set(KUBE_134_RESOURCES.filter((r) => !r.startsWith("v1/")).map((r) => r.split("/")[0]!)),
];

beforeAll(async () => {
  clock = new FakeClock();
  s = await startEngineServer(clock);
  s.engine.register(WIDGETS);
});
afterAll(async () => {
  await s.close();
});

/** What a kind needs beyond its metadata to pass admission (a container, a selector matching the template, …). */
function validContent(r: SimResource): Record<string, unknown> {
  const podSpec = (restartPolicy: string) => ({ restartPolicy, containers: [{ name: "c", image: "nginx" }] });
  const template = { metadata: { labels: { app: "x" } }, spec: podSpec("Always") };
  switch (`${r.group}/${r.resource}`) {
    case "/pods":
      return { spec: podSpec("Always") };
    case "/services":
      return { spec: { ports: [{ port: 80 }] } };
    case "apps/deployments":
    case "apps/statefulsets":
    case "apps/daemonsets":
    case "apps/replicasets":
      return { spec: { selector: { matchLabels: { app: "x" } }, template } };
    case "batch/jobs":
      return { spec: { template: { spec: podSpec("Never") } } };
    case "autoscaling/horizontalpodautoscalers":
      return { spec: { scaleTargetRef: { kind: "Deployment", name: "x" }, maxReplicas: 3 } };
    case "admissionregistration.k8s.io/validatingadmissionpolicies":
      return {
        spec: {
          matchConstraints: {
            resourceRules: [{ operations: ["CREATE"], apiGroups: [""], apiVersions: ["v1"], resources: ["secrets"] }],
          },
          validations: [{ expression: "true" }],
        },
      };
    case "admissionregistration.k8s.io/validatingadmissionpolicybindings":
      return { spec: { policyName: "none", validationActions: ["Deny"] } };
    case "events.k8s.io/events":
      return {
        eventTime: "2026-01-01T00:00:00.000000Z",
        reportingController: "example.com/c",
        reportingInstance: "c-1",
        action: "Sync",
        reason: "Synced",
        type: "Normal",
      };
    default:
      return {};
  }
}

describe("resource set (item 4): every built-in resource and a custom resource registered at start", () => {
  // CustomResourceDefinitions have their own tests (a definition needs a valid spec).
  // The review kinds are create-only (their own tests below).
  const all = [
    ...BUILTIN_RESOURCES.filter((r) => r.resource !== "customresourcedefinitions" && r.review !== true),
    WIDGETS,
  ];

  it("the built-ins are what kubectl api-resources lists on a v1.34 cluster (connect subresources, bindings and componentstatuses aside)", () => {
    expect(BUILTIN_RESOURCES.map((r) => `${apiVersion(r)}/${r.resource}`).sort()).toEqual(KUBE_134_RESOURCES);
  });

  it.each(all.map((r) => [r.resource, r] as const))(
    "%s: discovery, create, get, list, watch event, delete",
    async (_n, r) => {
      const gvDoc = (await fetchRaw(`${s.url}${r.group === "" ? "/api/v1" : `/apis/${r.group}/${r.version}`}`))
        .json as {
        kind: string;
        groupVersion: string;
        resources: Array<Record<string, unknown>>;
      };
      expect(gvDoc.kind).toBe("APIResourceList");
      expect(gvDoc.groupVersion).toBe(apiVersion(r));
      expect(gvDoc.resources).toContainEqual(
        expect.objectContaining({
          name: r.resource,
          kind: r.kind,
          namespaced: r.namespaced,
          singularName: r.singularName,
        }),
      );
      if (r.group !== "") {
        const groups = (await fetchRaw(`${s.url}/apis`)).json as { groups: Array<{ name: string }> };
        expect(groups.groups.map((g) => g.name)).toContain(r.group);
      }
      // An IPAddress is named by its address (ValidateIPAddressName).
      const name = r.resource === "ipaddresses" ? "192.0.2.1" : `${r.resource.slice(0, 5)}-one`;
      const path = collectionPath(r);
      // Only this object: the namespaces collection also holds the four system namespaces.
      const w = await openStream(`${s.url}${path}?watch=true&timeoutSeconds=60&fieldSelector=metadata.name%3D${name}`);
      expect(w.status).toBe(200);
      const created = await fetchRaw(`${s.url}${path}`, {
        method: "POST",
        headers: json,
        body: JSON.stringify({ apiVersion: apiVersion(r), kind: r.kind, metadata: { name }, ...validContent(r) }),
      });
      expect(created.status).toBe(201);
      expect(created.json).toMatchObject({
        kind: r.kind,
        apiVersion: apiVersion(r),
        metadata: { name, ...(r.namespaced && { namespace: "default" }), uid: expect.any(String) },
      });
      const ev = await w.nextEvent();
      expect(ev).toMatchObject({ type: "ADDED", object: { kind: r.kind, metadata: { name } } });
      w.close();
      const got = await fetchRaw(`${s.url}${path}/${name}`);
      expect(got.status).toBe(200);
      const list = (await fetchRaw(`${s.url}${path}`)).json as { kind: string; items: Array<Record<string, unknown>> };
      expect(list.kind).toBe(`${r.kind}List`);
      const item = list.items.find((i) => (i.metadata as { name: string }).name === name);
      // Built-in typed lists drop kind/apiVersion from items; custom resources keep them (§7.2).
      if (r.custom === true) expect(item).toMatchObject({ kind: r.kind, apiVersion: apiVersion(r) });
      else expect(item).not.toHaveProperty("kind");
      const del = await fetchRaw(`${s.url}${path}/${name}`, { method: "DELETE" });
      expect(del.status).toBe(200);
      // Of the built-ins only pods answer DELETE with the object (kube's registry ReturnDeletedObject); a namespace
      // answers with itself, Terminating, and goes once the namespace controller has emptied and finalized it.
      if (r.group === "" && r.resource === "pods") expect(del.json).toMatchObject({ kind: r.kind, metadata: { name } });
      else if (r.group === "" && r.resource === "namespaces") {
        expect(del.json).toMatchObject({ kind: "Namespace", metadata: { name }, status: { phase: "Terminating" } });
        expect((await fetchRaw(`${s.url}${path}/${name}`)).status).toBe(200);
        await clock.step(0);
      } else {
        expect(del.json).toEqual({
          kind: "Status",
          apiVersion: "v1",
          metadata: {},
          status: "Success",
          details: {
            name,
            ...(r.group !== "" && { group: r.group }),
            kind: r.resource,
            uid: (created.json as { metadata: { uid: string } }).metadata.uid,
          },
        });
      }
      expect((await fetchRaw(`${s.url}${path}/${name}`)).status).toBe(404);
    },
  );
});

describe("discovery and non-resource endpoints", () => {
  it("/version, /api, /apis, /healthz, /readyz, /livez, /openapi/v3 on the engine", async () => {
    expect((await fetchRaw(`${s.url}/version`)).json).toMatchObject({
      major: "1",
      minor: "34",
      gitVersion: expect.stringMatching(/^v1\.34\.0/),
    });
    const api = (await fetchRaw(`${s.url}/api`)).json as { kind: string; versions: string[] };
    expect(api).toMatchObject({ kind: "APIVersions", versions: ["v1"] });
    const apis = (await fetchRaw(`${s.url}/apis`)).json as {
      groups: Array<{ name: string; preferredVersion: unknown }>;
    };
    expect(apis.groups.map((g) => g.name).sort()).toEqual([...KUBE_134_GROUPS, "example.com"].sort());
    expect((await fetchRaw(`${s.url}/apis/apps`)).json).toMatchObject({
      kind: "APIGroup",
      name: "apps",
      preferredVersion: { groupVersion: "apps/v1", version: "v1" },
    });
    for (const p of ["/healthz", "/readyz", "/livez"]) {
      const r = await fetchRaw(`${s.url}${p}`);
      expect([r.status, r.text, r.headers["content-type"]]).toEqual([200, "ok", "text/plain; charset=utf-8"]);
    }
    const idx = (await fetchRaw(`${s.url}/openapi/v3`)).json as { paths: Record<string, unknown> };
    const groupVersions = [...new Set(KUBE_134_RESOURCES.map((gvr) => gvr.slice(0, gvr.lastIndexOf("/"))))];
    expect(Object.keys(idx.paths).sort()).toEqual(
      [...groupVersions, "example.com/v1"].map((gv) => (gv === "v1" ? "api/v1" : `apis/${gv}`)).sort(),
    );
  });

  it("binds 127.0.0.1 by default", () => {
    expect(s.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
  });
});

async function expectStatus(r: RawResponse, code: number, body: unknown, retryAfter?: string) {
  expect(r.status).toBe(code);
  expect(r.headers["content-type"]).toBe("application/json");
  expect(r.json).toEqual(body);
  expect(Object.keys(r.json as object)).toEqual(Object.keys(body as object));
  expect(r.headers["retry-after"]).toBe(retryAfter);
}

describe("Status table (reference §7.5) on the engine: exact bodies and headers", () => {
  const req = (path: string, o?: RequestOptions) => fetchRaw(`${s.url}${path}`, o);

  it("404 NotFound with details.kind = resource", async () => {
    await expectStatus(
      await req(`${CM}/missing`),
      404,
      status(404, "NotFound", 'configmaps "missing" not found', { name: "missing", kind: "configmaps" }),
    );
    await expectStatus(
      await req("/apis/apps/v1/namespaces/default/deployments/missing"),
      404,
      status(404, "NotFound", 'deployments.apps "missing" not found', {
        name: "missing",
        group: "apps",
        kind: "deployments",
      }),
    );
  });

  it("504 Timeout for a request not answered within 60 s (non-long-running request timeout); watches are exempt", async () => {
    const remove = s.engine.faults.latency({ ms: 120_000, verbs: ["list", "watch"] });
    try {
      const slow = req(CM);
      const idle = clock.pendingTimers();
      const watch = openStream(`${s.url}${CM}?watch=true&timeoutSeconds=600`);
      for (let i = 0; i < 200 && clock.pendingTimers() < idle + 2; i++) await new Promise((r) => setImmediate(r));
      await clock.step(60_000);
      await expectStatus(
        await slow,
        504,
        status(504, "Timeout", "Timeout: request did not complete within the allotted timeout", {}),
      );
      await clock.step(60_000); // the watch's latency is over: it opens, 120 s after it was asked for
      const w = await watch;
      expect(w.status).toBe(200);
      w.close();
    } finally {
      remove();
    }
  });

  it("409 AlreadyExists and 409 Conflict (stale resourceVersion)", async () => {
    const body = JSON.stringify(configMap("dup"));
    expect((await req(CM, { method: "POST", headers: json, body })).status).toBe(201);
    await expectStatus(
      await req(CM, { method: "POST", headers: json, body }),
      409,
      status(409, "AlreadyExists", 'configmaps "dup" already exists', { name: "dup", kind: "configmaps" }),
    );
    const stale = { ...configMap("dup", { v: "2" }), metadata: { name: "dup", resourceVersion: "1" } };
    await expectStatus(
      await req(`${CM}/dup`, { method: "PUT", headers: json, body: JSON.stringify(stale) }),
      409,
      status(
        409,
        "Conflict",
        'Operation cannot be fulfilled on configmaps "dup": the object has been modified; please apply your changes to the latest version and try again',
        { name: "dup", kind: "configmaps" },
      ),
    );
  });

  it("410 Expired: list at a compacted resourceVersion; watch from a too-old RV gets the ERROR event", async () => {
    await s.engine.create("configmaps", "default", configMap("old"));
    const oldRV = s.engine.currentResourceVersion;
    await s.engine.create("configmaps", "default", configMap("newer"));
    const compact = await req("/_sim/compact", { method: "POST", headers: json, body: "{}" });
    expect(compact.status).toBe(200);
    // Empty the watch cache's history too, or ListFromCacheSnapshot (1.34) would serve the exact RV from the cache.
    s.engine.faults.reinitializeCache("configmaps");
    await expectStatus(
      await req(`${CM}?resourceVersion=${oldRV}&resourceVersionMatch=Exact`),
      410,
      status(410, "Expired", "The resourceVersion for the provided list is too old."),
    );
    const w = await openStream(`${s.url}${CM}?watch=true&resourceVersion=${oldRV}`);
    expect(w.status).toBe(200);
    const ev = await w.nextEvent();
    expect(ev).toEqual({
      type: "ERROR",
      object: status(
        410,
        "Expired",
        expect.stringMatching(/^too old resource version: \d+ \(\d+\)$/) as unknown as string,
      ),
    });
    expect(await w.ended).toBe(true);
  });

  it("429 TooManyRequests with Retry-After while the watch cache re-initializes", async () => {
    s.engine.faults.reinitializeCache("secrets", 5000);
    const r = await req("/api/v1/namespaces/default/secrets?watch=true");
    await expectStatus(
      r,
      429,
      status(429, "TooManyRequests", "storage is (re)initializing", { retryAfterSeconds: expect.any(Number) }),
      String((r.json as { details: { retryAfterSeconds: number } }).details.retryAfterSeconds),
    );
    await clock.step(5000);
    await settle();
    const ok = await openStream(`${s.url}/api/v1/namespaces/default/secrets?watch=true`);
    expect(ok.status).toBe(200);
    ok.close();
  });

  it("500 InternalError from an injected fault", async () => {
    const add = await req("/_sim/faults", {
      method: "POST",
      headers: json,
      body: JSON.stringify({
        type: "status",
        code: 500,
        message: "etcdserver: leader changed",
        resource: "leases",
        count: 1,
      }),
    });
    expect(add.status).toBe(201);
    await expectStatus(
      await req("/apis/coordination.k8s.io/v1/namespaces/default/leases"),
      500,
      status(500, "InternalError", "Internal error occurred: etcdserver: leader changed", {
        causes: [{ message: "etcdserver: leader changed" }],
      }),
    );
    expect((await req("/apis/coordination.k8s.io/v1/namespaces/default/leases")).status).toBe(200);
  });

  it("504 Timeout 'Too large resource version' with Retry-After: 1 after the 3 s freshness wait", async () => {
    const current = s.engine.currentResourceVersion;
    const future = current + 1000;
    const r = await withTime(clock, req(`${CM}?resourceVersion=${future}&resourceVersionMatch=NotOlderThan`));
    await expectStatus(
      r,
      504,
      status(504, "Timeout", `Timeout: Too large resource version: ${future}, current: ${current}`, {
        causes: [{ reason: "ResourceVersionTooLarge", message: "Too large resource version" }],
        retryAfterSeconds: 1,
      }),
      "1",
    );
  });
});

describe("accounting (item 7): programmatic, /metrics, audit and httplog lines", () => {
  it("each request is counted once by verb, resource, user agent, code and served-from, with latency and bytes", async () => {
    const ua = { "user-agent": "acct-test/1.0" };
    await s.engine.create("namespaces", "", { metadata: { name: "acct" } });
    await fetchRaw(`${s.url}/api/v1/namespaces/acct/configmaps`, { headers: ua });
    await fetchRaw(`${s.url}/api/v1/namespaces/acct/configmaps?resourceVersion=0`, { headers: ua });
    await fetchRaw(`${s.url}/api/v1/namespaces/acct/configmaps/nope`, { headers: ua });
    await fetchRaw(`${s.url}/api/v1/namespaces/acct/configmaps`, {
      method: "POST",
      headers: { ...ua, ...json },
      body: JSON.stringify(configMap("a", {}, "acct")),
    });
    const rows = s.engine.accounting.rows().filter((r) => r.userAgent === "acct-test/1.0");
    const key = (r: (typeof rows)[number]) => `${r.verb} ${r.resource} ${r.code} ${r.servedFrom} ${r.count}`;
    expect(rows.map(key).sort()).toEqual([
      "create configmaps 201  1",
      "get configmaps 404 storage 1",
      // RV unset is a consistent read served from the watch cache (KEP-2340, on by default since 1.31).
      "list configmaps 200 cache 2",
    ]);
    for (const r of rows) expect(r.bytes).toBeGreaterThan(100);
    expect(s.engine.accounting.count({ userAgent: "acct-test/1.0", servedFrom: "cache" })).toBe(2);

    const adm = (await fetchRaw(`${s.url}/_sim/accounting`)).json as {
      requests: Array<{ userAgent: string; count: number }>;
    };
    const mine = adm.requests.filter((r) => r.userAgent === "acct-test/1.0");
    expect(mine.reduce((n, r) => n + r.count, 0)).toBe(4);

    const metrics = await fetchRaw(`${s.url}/metrics`);
    expect(metrics.status).toBe(200);
    expect(metrics.headers["content-type"]).toMatch(/^text\/plain/);
    const lines = metrics.text.split("\n").filter((l) => l.includes('user_agent="acct-test/1.0"'));
    const total = lines.filter((l) => l.startsWith("apiserver_request_total{"));
    expect(total).toHaveLength(3);
    expect(total).toContainEqual(expect.stringMatching(/verb="LIST".*code="200".*served_from="cache".* 2$/));
    expect(total).toContainEqual(expect.stringMatching(/verb="GET".*code="404".*served_from="storage".* 1$/));
    expect(total).toContainEqual(expect.stringMatching(/verb="POST".*code="201".*served_from="".* 1$/));
    expect(metrics.text).toMatch(
      /^apiserver_request_duration_seconds_count\{verb="LIST",.*served_from="cache"\} \d+$/m,
    );
    expect(metrics.text).toMatch(/^apiserver_response_sizes_count\{verb="LIST",.*resource="configmaps"\} \d+$/m);

    const audit = s.auditLines.map((l) => JSON.parse(l)).filter((e) => e.userAgent === "acct-test/1.0");
    expect(audit).toHaveLength(4);
    expect(audit[3]).toMatchObject({
      kind: "Event",
      apiVersion: "audit.k8s.io/v1",
      level: "Metadata",
      stage: "ResponseComplete",
      verb: "create",
      requestURI: "/api/v1/namespaces/acct/configmaps",
      user: { username: "system:anonymous" },
      objectRef: { resource: "configmaps", namespace: "acct", apiVersion: "v1" },
      responseStatus: { code: 201 },
      requestReceivedTimestamp: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$/),
      annotations: { "sim.informer-ts.dev/served-from": "" },
    });
    const httplog = s.httpLogLines.map((l) => JSON.parse(l)).filter((e) => e.userAgent === "acct-test/1.0");
    expect(httplog.map((e) => `${e.verb} ${e.code}`)).toEqual(["list 200", "list 200", "get 404", "create 201"]);
  });

  it("a watch is counted when it ends, served from the cache, with the bytes it streamed", async () => {
    const ua = { "user-agent": "acct-watch/1.0" };
    await s.engine.create("namespaces", "", { metadata: { name: "acctw" } });
    const w = await openStream(`${s.url}/api/v1/namespaces/acctw/configmaps?watch=true&timeoutSeconds=60`, {
      headers: ua,
    });
    await s.engine.create("configmaps", "acctw", configMap("x", {}, "acctw"));
    expect(await w.nextEvent()).toMatchObject({ type: "ADDED" });
    expect(s.engine.accounting.count({ userAgent: "acct-watch/1.0" })).toBe(0);
    // One registry for the engine's accounting and the HTTP face's long-running gauge.
    expect((await fetchRaw(`${s.url}/metrics`)).text).toMatch(
      /^apiserver_longrunning_requests\{verb="WATCH",resource="configmaps"\} [1-9]\d*$/m,
    );
    w.close();
    await expect.poll(() => s.engine.accounting.count({ userAgent: "acct-watch/1.0" })).toBe(1);
    const row = s.engine.accounting.rows().find((r) => r.userAgent === "acct-watch/1.0")!;
    expect(row).toMatchObject({ verb: "watch", code: 200, servedFrom: "cache" });
    expect(row.bytes).toBeGreaterThan(100);
  });
});

describe("deletecollection over HTTP", () => {
  it("DELETE on a namespaced collection with a label selector and a body: the selected list as the answer; finalizers hold", async () => {
    const ns = "/api/v1/namespaces/dc/configmaps";
    expect(
      (
        await fetchRaw(`${s.url}/api/v1/namespaces`, {
          method: "POST",
          headers: json,
          body: JSON.stringify({ metadata: { name: "dc" } }),
        })
      ).status,
    ).toBe(201);
    for (const [name, fin] of [
      ["x1", false],
      ["x2", true],
      ["y1", false],
    ] as const) {
      const body = {
        metadata: { name, labels: { app: name.slice(0, 1) }, ...(fin && { finalizers: ["example.com/x"] }) },
      };
      expect(
        (await fetchRaw(`${s.url}${ns}`, { method: "POST", headers: json, body: JSON.stringify(body) })).status,
      ).toBe(201);
    }
    const dry = await fetchRaw(`${s.url}${ns}?labelSelector=app%3Dx&dryRun=All`, { method: "DELETE" });
    expect(dry.status).toBe(200);
    expect((await fetchRaw(`${s.url}${ns}`)).json).toMatchObject({ items: [{}, {}, {}] });
    const res = await fetchRaw(`${s.url}${ns}?labelSelector=app%3Dx`, {
      method: "DELETE",
      headers: json,
      body: JSON.stringify({ kind: "DeleteOptions", apiVersion: "v1", propagationPolicy: "Background" }),
    });
    expect(res.status).toBe(200);
    const list = res.json as { kind: string; apiVersion: string; items: Array<{ metadata: { name: string } }> };
    expect(list.kind).toBe("ConfigMapList");
    expect(list.apiVersion).toBe("v1");
    expect(list.items.map((o) => o.metadata.name)).toEqual(["x1", "x2"]);
    const left = (await fetchRaw(`${s.url}${ns}`)).json as {
      items: Array<{ metadata: { name: string; deletionTimestamp?: string } }>;
    };
    expect(left.items.map((o) => [o.metadata.name, o.metadata.deletionTimestamp !== undefined])).toEqual([
      ["x2", true],
      ["y1", false],
    ]);
    const bad = await fetchRaw(`${s.url}${ns}`, {
      method: "DELETE",
      headers: json,
      body: JSON.stringify({ propagationPolicy: "Sideways" }),
    });
    expect(bad.status).toBe(422);
    expect((await fetchRaw(`${s.url}/api/v1/namespaces`, { method: "DELETE" })).status).toBe(405);
  });

  it("discovery lists deletecollection for the resources that serve it, not for namespaces", async () => {
    const doc = (await fetchRaw(`${s.url}/api/v1`)).json as { resources: Array<{ name: string; verbs: string[] }> };
    const verbs = (name: string) => doc.resources.find((r) => r.name === name)?.verbs;
    expect(verbs("configmaps")).toEqual([
      "create",
      "delete",
      "deletecollection",
      "get",
      "list",
      "patch",
      "update",
      "watch",
    ]);
    expect(verbs("namespaces")).not.toContain("deletecollection");
  });
});
