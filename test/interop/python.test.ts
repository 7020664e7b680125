// The Python `kubernetes` client (Debian python3-kubernetes via /usr/bin/python3) against the simulated apiserver:
// list + watch over plain HTTP (it sends `watch=True`, capitalised), and over HTTPS via the generated kubeconfig.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { run } from "./run.js";
import { configMap, type SimHandle, startSim } from "./sim.js";
import { checkPythonKubernetes, pythonBin, requireTool } from "./tools.js";

const python = checkPythonKubernetes();

// Lists, then watches from the list's RV (timeout_seconds bounds the stream), printing one line per event and
// stopping after the object the test creates once the watch is open (seen in the server's stats).
const LIST_WATCH = `
import json, sys
from kubernetes import client, config, watch
mode, target = sys.argv[1], sys.argv[2]
if mode == "host":
    cfg = client.Configuration(); cfg.host = target
    api = client.CoreV1Api(client.ApiClient(cfg))
else:
    config.load_kube_config(config_file=target)
    api = client.CoreV1Api()
lst = api.list_namespaced_config_map("default")
print(json.dumps({"list": [i.metadata.name for i in lst.items], "rv": lst.metadata.resource_version}), flush=True)
w = watch.Watch()
for ev in w.stream(api.list_namespaced_config_map, "default", resource_version=lst.metadata.resource_version, timeout_seconds=30):
    print(json.dumps({"type": ev["type"], "name": ev["object"].metadata.name, "rv": ev["object"].metadata.resource_version}), flush=True)
    if ev["object"].metadata.name == "py-added":
        w.stop()
print(json.dumps({"done": True}), flush=True)
`;

/** Runs the script and creates `py-added` through the API as soon as the script's watch is open. */
async function listWatch(sim: SimHandle, mode: string, target: string) {
  const before = sim.server.stats.openWatches;
  const p = run(pythonBin(), ["-c", LIST_WATCH, mode, target], { timeoutMs: 60_000 });
  await expect.poll(() => sim.server.stats.openWatches, { timeout: 30_000 }).toBe(before + 1);
  await sim.create(configMap("py-added", { a: "b" }));
  return p;
}

function lines(stdout: string): Array<Record<string, unknown>> {
  return stdout
    .trim()
    .split("\n")
    .filter((l) => l.startsWith("{"))
    .map((l) => JSON.parse(l));
}

describe("interop: python kubernetes client", () => {
  let sim: SimHandle;
  beforeAll(async () => {
    if (!python.ok) return;
    sim = await startSim();
    await sim.create(configMap("py-a"));
    await sim.create(configMap("py-b"));
  });
  afterAll(async () => {
    await sim?.close();
  });

  it("list + watch (watch=True) sees the objects and a streamed ADDED", async (ctx) => {
    requireTool(python, ctx);
    const r = await listWatch(sim, "host", sim.url);
    expect(r.stderr).toBe("");
    expect(r.code).toBe(0);
    const out = lines(r.stdout);
    expect(out[0]).toMatchObject({ list: ["py-a", "py-b"] });
    expect(out).toContainEqual(expect.objectContaining({ type: "ADDED", name: "py-added" }));
    expect(out.at(-1)).toEqual({ done: true });
  });
});

// A metadata-only list through the client's generic call_api, with the Accept header a metadata informer sends.
const METADATA_LIST = `
import json, sys
from kubernetes import client
cfg = client.Configuration(); cfg.host = sys.argv[1]
api = client.ApiClient(cfg)
accept = "application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1,application/json"
data = api.call_api("/api/v1/namespaces/default/configmaps", "GET", header_params={"Accept": accept},
                    response_type="object", _return_http_data_only=True)
print(json.dumps({"kind": data["kind"], "apiVersion": data["apiVersion"],
                  "items": [sorted(i.keys()) for i in data["items"]],
                  "names": [i["metadata"]["name"] for i in data["items"]]}), flush=True)
`;

describe("interop: python kubernetes client reads a metadata-only list", () => {
  it("call_api with Accept as=PartialObjectMetadataList gets kind/apiVersion meta.k8s.io/v1 and only metadata", async (ctx) => {
    requireTool(python, ctx);
    const sim = await startSim();
    try {
      await sim.create(configMap("py-meta", { big: "x".repeat(1000) }));
      const r = await run(pythonBin(), ["-c", METADATA_LIST, sim.url], { timeoutMs: 60_000 });
      expect(r.stderr).toBe("");
      expect(lines(r.stdout)).toEqual([
        {
          kind: "PartialObjectMetadataList",
          apiVersion: "meta.k8s.io/v1",
          items: [["apiVersion", "kind", "metadata"]],
          names: ["py-meta"],
        },
      ]);
    } finally {
      await sim.close();
    }
  });
});

// Watches from a resourceVersion the server no longer has: the client retries once, then raises ApiException with
// the Status' code and "reason: message" — which needs the ERROR event's Status to carry code, reason and message.
const WATCH_EXPIRED = `
import json, sys
from kubernetes import client, watch
from kubernetes.client.rest import ApiException
cfg = client.Configuration(); cfg.host = sys.argv[1]
api = client.CoreV1Api(client.ApiClient(cfg))
try:
    for ev in watch.Watch().stream(api.list_namespaced_config_map, "default", resource_version=sys.argv[2]):
        print(json.dumps({"type": ev["type"]}), flush=True)
except ApiException as e:
    print(json.dumps({"status": e.status, "reason": e.reason}), flush=True)
`;

describe("interop: python kubernetes client and 410", () => {
  it("a watch from an expired resourceVersion raises ApiException(410, 'Expired: too old resource version: …')", async (ctx) => {
    requireTool(python, ctx);
    const sim = await startSim();
    try {
      await sim.create(configMap("py-old"));
      const old = sim.engine.currentResourceVersion;
      await sim.create(configMap("py-new"));
      sim.engine.faults.reinitializeCache("configmaps");
      const r = await run(pythonBin(), ["-c", WATCH_EXPIRED, sim.url, String(old - 1)], { timeoutMs: 60_000 });
      expect(r.stderr).toBe("");
      const out = lines(r.stdout);
      expect(out).toHaveLength(1);
      expect(out[0]).toEqual({
        status: 410,
        reason: expect.stringMatching(/^Expired: too old resource version: \d+ \(\d+\)$/),
      });
    } finally {
      await sim.close();
    }
  });
});

describe("interop: python kubernetes client over HTTPS", () => {
  it("load_kube_config with token + CA", async (ctx) => {
    requireTool(python, ctx);
    const sim = await startSim({ tls: true, token: "py-token" });
    try {
      await sim.create(configMap("py-tls"));
      const r = await listWatch(sim, "kubeconfig", sim.kubeconfig);
      expect(r.stderr).toBe("");
      const out = lines(r.stdout);
      expect(out[0]).toMatchObject({ list: ["py-tls"] });
      expect(out).toContainEqual(expect.objectContaining({ type: "ADDED", name: "py-added" }));
    } finally {
      await sim.close();
    }
  });

  it("load_kube_config with a client certificate", async (ctx) => {
    requireTool(python, ctx);
    const sim = await startSim({ tls: true, clientCert: true });
    try {
      await sim.create(configMap("py-x509"));
      const r = await listWatch(sim, "kubeconfig", sim.kubeconfig);
      expect(r.stderr).toBe("");
      expect(lines(r.stdout)[0]).toMatchObject({ list: ["py-x509"] });
    } finally {
      await sim.close();
    }
  });
});

// Reads and writes a Deployment's status subresource through AppsV1Api.
const STATUS = `
import json, sys
from kubernetes import client
cfg = client.Configuration(); cfg.host = sys.argv[1]
api = client.AppsV1Api(client.ApiClient(cfg))
d = api.read_namespaced_deployment_status("py-dep", "default")
print(json.dumps({"replicas": d.status.replicas if d.status else None, "generation": d.metadata.generation}), flush=True)
p = api.patch_namespaced_deployment_status("py-dep", "default", {"status": {"replicas": 4, "readyReplicas": 2}})
print(json.dumps({"replicas": p.status.replicas, "ready": p.status.ready_replicas, "specReplicas": p.spec.replicas}), flush=True)
`;

describe("interop: python kubernetes client and the status subresource", () => {
  it("read_namespaced_deployment_status and patch_namespaced_deployment_status", async (ctx) => {
    requireTool(python, ctx);
    const sim = await startSim();
    try {
      await sim.engine.create("deployments.apps", "default", {
        metadata: { name: "py-dep" },
        spec: {
          replicas: 2,
          selector: { matchLabels: { a: "b" } },
          template: { metadata: { labels: { a: "b" } }, spec: { containers: [{ name: "c", image: "i" }] } },
        },
      });
      const r = await run(pythonBin(), ["-c", STATUS, sim.url], { timeoutMs: 60_000 });
      expect(r.stderr).toBe("");
      expect(lines(r.stdout)).toEqual([
        { replicas: null, generation: 1 },
        { replicas: 4, ready: 2, specReplicas: 2 },
      ]);
    } finally {
      await sim.close();
    }
  });
});
