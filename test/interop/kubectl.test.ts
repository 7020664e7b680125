// kubectl against the simulated apiserver: discovery, Table output, create -f (OpenAPI v3 field-validation
// probe), apply, get -w streaming, delete, and HTTPS with a generated kubeconfig (token and client certificate).
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { WIDGETS } from "../../packages/sim-apiserver/src/engine/resources.test-util.js";
import { useKubectlSim } from "./kubectl-cluster-harness.js";
import { run } from "./run.js";
import { configMap, startSim } from "./sim.js";
import { checkKubectl, kubectlBin, requireTool } from "./tools.js";

const kubectl = checkKubectl();

describe("interop: kubectl", () => {
  const { k, sim, dir, stream, require: requireKubectl } = useKubectlSim("kubectl");

  it("kubectl get configmaps prints the server's Table (NAME DATA AGE)", async (ctx) => {
    requireKubectl(ctx);
    await sim().create(configMap("cm-get", { a: "1", b: "2" }));
    const r = await k(["get", "configmaps"]);
    expect(r.stderr).toBe("");
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^NAME\s+DATA\s+AGE$/m);
    expect(r.stdout).toMatch(/^cm-get\s+2\s+\S+$/m);
  });

  it("kubectl get --sort-by sorts the server's Table rows by a field of each row's full object", async (ctx) => {
    requireKubectl(ctx);
    // Created out of order: the rows come back in name order, so sort by a data value that runs the other way.
    await sim().create(configMap("sort-b", { rank: "1" }));
    await sim().create(configMap("sort-c", { rank: "0" }));
    await sim().create(configMap("sort-a", { rank: "2" }));
    const r = await k(["get", "configmaps", "--sort-by=.data.rank"]);
    expect(r.stderr).toBe("");
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^NAME\s+DATA\s+AGE$/m);
    const names = r.stdout.split("\n").flatMap((l) => (/^sort-\w/.test(l) ? [l.split(/\s+/)[0]] : []));
    expect(names).toEqual(["sort-c", "sort-b", "sort-a"]);
  });

  it("kubectl get pods,deploy,svc prints upstream's columns for each kind", async (ctx) => {
    requireKubectl(ctx);
    await sim().engine.create("pods", "default", {
      metadata: { name: "web-0" },
      spec: { containers: [{ name: "web", image: "nginx" }] },
    });
    await sim().engine.create("deployments.apps", "default", {
      metadata: { name: "web" },
      spec: {
        replicas: 2,
        selector: { matchLabels: { app: "web" } },
        template: { metadata: { labels: { app: "web" } }, spec: { containers: [{ name: "web", image: "nginx" }] } },
      },
    });
    const r = await k(["get", "pods,deploy,svc"]);
    expect(r.stderr).toBe("");
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^NAME\s+READY\s+STATUS\s+RESTARTS\s+AGE$/m);
    expect(r.stdout).toMatch(/^pod\/web-0\s+0\/1\s+Pending\s+0\s+\S+$/m);
    expect(r.stdout).toMatch(/^NAME\s+READY\s+UP-TO-DATE\s+AVAILABLE\s+AGE$/m);
    expect(r.stdout).toMatch(/^deployment\.apps\/web\s+0\/2\s+0\s+0\s+\S+$/m);
    expect(r.stdout).toMatch(/^NAME\s+TYPE\s+CLUSTER-IP\s+EXTERNAL-IP\s+PORT\(S\)\s+AGE$/m);
    expect(r.stdout).toMatch(/^service\/kubernetes\s+ClusterIP\s+10\.96\.0\.1\s+<none>\s+443\/TCP\s+\S+$/m);
  });

  it("kubectl get hpa prints upstream's columns, and reads an HPA written at v1 through the preferred v2", async (ctx) => {
    requireKubectl(ctx);
    await sim().engine.create("horizontalpodautoscalers.v1.autoscaling", "default", {
      metadata: { name: "web-hpa" },
      spec: {
        scaleTargetRef: { apiVersion: "apps/v1", kind: "Deployment", name: "web" },
        maxReplicas: 5,
        targetCPUUtilizationPercentage: 60,
      },
    });
    const r = await k(["get", "hpa"]);
    expect(r.stderr).toBe("");
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^NAME\s+REFERENCE\s+TARGETS\s+MINPODS\s+MAXPODS\s+REPLICAS\s+AGE$/m);
    expect(r.stdout).toMatch(/^web-hpa\s+Deployment\/web\s+cpu: <unknown>\/60%\s+1\s+5\s+0\s+\S+$/m);
    const v2 = JSON.parse(
      (await k(["get", "horizontalpodautoscalers.v2.autoscaling", "web-hpa", "-o", "json"])).stdout,
    );
    expect(v2.apiVersion).toBe("autoscaling/v2");
    expect(v2.spec.metrics).toEqual([
      { type: "Resource", resource: { name: "cpu", target: { type: "Utilization", averageUtilization: 60 } } },
    ]);
    const v1 = JSON.parse(
      (await k(["get", "horizontalpodautoscalers.v1.autoscaling", "web-hpa", "-o", "json"])).stdout,
    );
    expect(v1.apiVersion).toBe("autoscaling/v1");
    expect(v1.spec.targetCPUUtilizationPercentage).toBe(60);
  });

  it("kubectl create -f with default validation (OpenAPI v3 probe) and with --validate=false", async (ctx) => {
    requireKubectl(ctx);
    const f1 = join(dir(), "cm1.yaml");
    const f2 = join(dir(), "cm2.yaml");
    writeFileSync(f1, 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cm-create\ndata:\n  x: "1"\n');
    writeFileSync(f2, 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cm-noval\ndata:\n  y: "2"\n');
    const a = await k(["create", "-f", f1]);
    expect(a.stderr).toBe("");
    expect(a.stdout.trim()).toBe("configmap/cm-create created");
    const b = await k(["create", "-f", f2, "--validate=false"]);
    expect(b.stdout.trim()).toBe("configmap/cm-noval created");
    const again = await k(["create", "-f", f1]);
    expect(again.code).toBe(1);
    expect(again.stderr).toContain('configmaps "cm-create" already exists');
    const got = await k(["get", "configmap", "cm-create", "-o", "json"]);
    expect(JSON.parse(got.stdout)).toMatchObject({
      kind: "ConfigMap",
      metadata: { name: "cm-create" },
      data: { x: "1" },
    });
  });

  it("kubectl apply -f creates, then patches", async (ctx) => {
    requireKubectl(ctx);
    const f = join(dir(), "apply.yaml");
    writeFileSync(f, 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cm-apply\ndata:\n  v: "1"\n');
    const a = await k(["apply", "-f", f]);
    expect(a.stderr).toBe("");
    expect(a.stdout.trim()).toBe("configmap/cm-apply created");
    writeFileSync(f, 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cm-apply\ndata:\n  v: "2"\n');
    const b = await k(["apply", "-f", f]);
    expect(b.stderr).toBe("");
    expect(b.stdout.trim()).toBe("configmap/cm-apply configured");
    const got = JSON.parse((await k(["get", "cm", "cm-apply", "-o", "json"])).stdout);
    expect(got.data).toEqual({ v: "2" });
  });

  it("kubectl apply --server-side: creates, conflicts with kubectl create's ownership, --force-conflicts takes over", async (ctx) => {
    requireKubectl(ctx);
    const f = join(dir(), "ssa.yaml");
    writeFileSync(f, 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cm-ssa\ndata:\n  a: "1"\n');
    const created = await k(["create", "-f", f]);
    expect(created.stdout.trim()).toBe("configmap/cm-ssa created");
    writeFileSync(f, 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cm-ssa\ndata:\n  a: "2"\n  b: "x"\n');
    const conflict = await k(["apply", "--server-side", "-f", f]);
    expect(conflict.code).toBe(1);
    expect(conflict.stderr).toContain('Apply failed with 1 conflict: conflict with "kubectl-create" using v1: .data.a');
    expect(conflict.stderr).toContain("--force-conflicts");
    const unchanged = JSON.parse((await k(["get", "cm", "cm-ssa", "-o", "json"])).stdout);
    expect(unchanged.data).toEqual({ a: "1" });
    const forced = await k(["apply", "--server-side", "--force-conflicts", "-f", f]);
    expect(forced.stderr).toBe("");
    expect(forced.stdout.trim()).toBe("configmap/cm-ssa serverside-applied");
    const got = JSON.parse((await k(["get", "cm", "cm-ssa", "-o", "json", "--show-managed-fields"])).stdout);
    expect(got.data).toEqual({ a: "2", b: "x" });
    expect(
      got.metadata.managedFields.map((e: { manager: string; operation: string }) => [e.manager, e.operation]),
    ).toEqual([
      ["kubectl", "Apply"],
      ["kubectl-create", "Update"],
    ]);
    expect(got.metadata.managedFields[0].fieldsV1).toEqual({ "f:data": { "f:a": {}, "f:b": {} } });
    // kubectl get hides managedFields unless asked.
    const plain = JSON.parse((await k(["get", "cm", "cm-ssa", "-o", "json"])).stdout);
    expect(plain.metadata.managedFields).toBeUndefined();
  });

  it("kubectl apply --server-side creates a missing object and is idempotent; kubectl scale uses /scale", async (ctx) => {
    requireKubectl(ctx);
    const f = join(dir(), "ssa-new.yaml");
    writeFileSync(
      f,
      "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\nspec:\n  replicas: 2\n  selector:\n    matchLabels: {app: web}\n  template:\n    metadata:\n      labels: {app: web}\n    spec:\n      containers:\n      - name: app\n        image: nginx:1\n",
    );
    const a = await k(["apply", "--server-side", "-f", f]);
    expect(a.stderr).toBe("");
    expect(a.stdout.trim()).toBe("deployment.apps/web serverside-applied");
    const rv1 = JSON.parse((await k(["get", "deploy", "web", "-o", "json"])).stdout).metadata.resourceVersion;
    const b = await k(["apply", "--server-side", "-f", f]);
    expect(b.stdout.trim()).toBe("deployment.apps/web serverside-applied");
    const got = JSON.parse((await k(["get", "deploy", "web", "-o", "json", "--show-managed-fields"])).stdout);
    expect(got.metadata.resourceVersion).toBe(rv1);
    expect(
      Object.keys(got.metadata.managedFields[0].fieldsV1["f:spec"]["f:template"]["f:spec"]["f:containers"]),
    ).toEqual(['k:{"name":"app"}']);
    // kubectl scale goes through the /scale subresource (autoscaling/v1 Scale).
    const scaled = await k(["scale", "deployment", "web", "--replicas=4"]);
    expect(scaled.stderr).toBe("");
    expect(scaled.stdout.trim()).toBe("deployment.apps/web scaled");
    const after = JSON.parse((await k(["get", "deploy", "web", "-o", "json"])).stdout);
    expect(after.spec.replicas).toBe(4);
    const raw = JSON.parse(
      (await k(["get", "--raw", "/apis/apps/v1/namespaces/default/deployments/web/scale"])).stdout,
    );
    expect(raw).toMatchObject({
      kind: "Scale",
      apiVersion: "autoscaling/v1",
      spec: { replicas: 4 },
      status: { selector: "app=web" },
    });
  });

  it("kubectl create -f crd.yaml serves the resource at once: get <plural>, short name, objects; delete crd stops it", async (ctx) => {
    requireKubectl(ctx);
    const crd = join(dir(), "crd.yaml");
    writeFileSync(
      crd,
      [
        "apiVersion: apiextensions.k8s.io/v1",
        "kind: CustomResourceDefinition",
        "metadata:",
        "  name: gizmos.interop.example.com",
        "spec:",
        "  group: interop.example.com",
        "  scope: Namespaced",
        "  names: {plural: gizmos, singular: gizmo, kind: Gizmo, shortNames: [gz]}",
        "  versions:",
        "  - name: v1",
        "    served: true",
        "    storage: true",
        "    schema:",
        "      openAPIV3Schema: {type: object, x-kubernetes-preserve-unknown-fields: true}",
        "",
      ].join("\n"),
    );
    const created = await k(["create", "-f", crd]);
    expect(created.stderr).toBe("");
    expect(created.stdout.trim()).toBe(
      "customresourcedefinition.apiextensions.k8s.io/gizmos.interop.example.com created",
    );
    const empty = await k(["get", "gizmos"]);
    expect([empty.code, empty.stderr.trim()]).toEqual([0, "No resources found in default namespace."]);
    const obj = join(dir(), "gizmo.yaml");
    writeFileSync(obj, "apiVersion: interop.example.com/v1\nkind: Gizmo\nmetadata:\n  name: g1\nspec:\n  size: 2\n");
    expect((await k(["apply", "--server-side", "-f", obj])).stdout.trim()).toBe(
      "gizmo.interop.example.com/g1 serverside-applied",
    );
    const listed = await k(["get", "gz"]);
    expect(listed.stdout).toMatch(/^NAME\s+AGE$/m);
    expect(listed.stdout).toMatch(/^g1\s+\S+$/m);
    const crds = await k(["get", "crd", "gizmos.interop.example.com", "-o", "json"]);
    expect(JSON.parse(crds.stdout).status.conditions.map((c: { type: string }) => c.type)).toEqual([
      "NamesAccepted",
      "Established",
    ]);
    const deleted = await k(["delete", "crd", "gizmos.interop.example.com"]);
    expect(deleted.stdout.trim()).toBe(
      'customresourcedefinition.apiextensions.k8s.io "gizmos.interop.example.com" deleted',
    );
    const after = await k(["get", "gizmos.interop.example.com"]);
    expect(after.code).toBe(1);
    expect(after.stderr).toContain("the server doesn't have a resource type \"gizmos");
  });

  it("kubectl get <plural>.<version>.<group> reads each served version of a CRD; the deprecated one warns", async (ctx) => {
    requireKubectl(ctx);
    const crd = join(dir(), "crd-versions.yaml");
    const version = (name: string, storage: boolean, extra: string[] = []) => [
      `  - name: ${name}`,
      "    served: true",
      `    storage: ${storage}`,
      ...extra,
      "    schema:",
      "      openAPIV3Schema: {type: object, x-kubernetes-preserve-unknown-fields: true}",
    ];
    writeFileSync(
      crd,
      [
        "apiVersion: apiextensions.k8s.io/v1",
        "kind: CustomResourceDefinition",
        "metadata:",
        "  name: sprockets.interop.example.com",
        "spec:",
        "  group: interop.example.com",
        "  scope: Namespaced",
        "  names: {plural: sprockets, singular: sprocket, kind: Sprocket}",
        "  versions:",
        ...version("v1beta1", false, ["    deprecated: true"]),
        ...version("v1", true),
        "",
      ].join("\n"),
    );
    expect((await k(["create", "-f", crd])).code).toBe(0);
    const obj = join(dir(), "sprocket.yaml");
    writeFileSync(
      obj,
      "apiVersion: interop.example.com/v1\nkind: Sprocket\nmetadata:\n  name: s1\nspec:\n  teeth: 12\n",
    );
    expect((await k(["create", "-f", obj])).code).toBe(0);
    const beta = await k(["get", "sprockets.v1beta1.interop.example.com", "s1", "-o", "json"]);
    expect(beta.code, beta.stderr).toBe(0);
    expect(JSON.parse(beta.stdout)).toMatchObject({ apiVersion: "interop.example.com/v1beta1", spec: { teeth: 12 } });
    expect(beta.stderr).toContain(
      "Warning: interop.example.com/v1beta1 Sprocket is deprecated; use interop.example.com/v1 Sprocket",
    );
    const preferred = await k(["get", "sprockets", "s1", "-o", "json"]);
    expect(JSON.parse(preferred.stdout).apiVersion).toBe("interop.example.com/v1");
    expect(preferred.stderr).toBe("");
    expect((await k(["delete", "crd", "sprockets.interop.example.com"])).code).toBe(0);
  });

  it("kubectl get -w prints existing rows, then streamed changes", async (ctx) => {
    requireKubectl(ctx);
    await sim().create(configMap("cm-w1"));
    const w = stream(["get", "configmaps", "-w"]);
    try {
      await w.waitForLine(/^NAME\s+DATA\s+AGE/);
      await w.waitForLine(/^cm-w1\s+1\s/);
      await sim().create(configMap("cm-w2", { a: "1", b: "2", c: "3" }));
      await w.waitForLine(/^cm-w2\s+3\s/);
    } finally {
      await w.kill();
    }
  });

  it("kubectl delete removes the object; a second get is NotFound", async (ctx) => {
    requireKubectl(ctx);
    await sim().create(configMap("cm-del"));
    const d = await k(["delete", "configmap", "cm-del"]);
    expect(d.stdout.trim()).toBe('configmap "cm-del" deleted');
    const g = await k(["get", "configmap", "cm-del"]);
    expect(g.code).toBe(1);
    expect(g.stderr.trim()).toBe('Error from server (NotFound): configmaps "cm-del" not found');
  });
});

describe("interop: kubectl on other resources of the engine", () => {
  const res = useKubectlSim("kubectl-res", async () => {
    const sim = await startSim();
    sim.engine.register(WIDGETS);
    return sim;
  });

  it("kubectl get leases / deployments / a custom resource registered at start (discovery of groups and CRs)", async (ctx) => {
    res.require(ctx);
    const { engine } = res.sim();
    await engine.create("leases.coordination.k8s.io", "default", {
      apiVersion: "coordination.k8s.io/v1",
      kind: "Lease",
      metadata: { name: "leader" },
    });
    await engine.create("deployments.apps", "default", {
      apiVersion: "apps/v1",
      kind: "Deployment",
      metadata: { name: "web" },
      spec: {
        selector: { matchLabels: { app: "web" } },
        template: { metadata: { labels: { app: "web" } }, spec: { containers: [{ name: "web", image: "nginx" }] } },
      },
    });
    await engine.create("widgets.example.com", "default", {
      apiVersion: "example.com/v1",
      kind: "Widget",
      metadata: { name: "w1" },
    });
    for (const [what, name] of [
      ["leases", "leader"],
      ["deployments", "web"],
      ["widgets", "w1"],
      ["wg", "w1"],
    ] as const) {
      const r = await res.k(["get", what, "-o", "name"]);
      expect(r.stderr).toBe("");
      expect(r.stdout.trim()).toMatch(new RegExp(`^[a-z0-9.]+/${name}$`));
    }
    const d = await res.k(["delete", "widget", "w1"]);
    expect(d.stdout.trim()).toBe('widget.example.com "w1" deleted');
    expect(engine.storage.count(engine.resource("widgets.example.com"))).toBe(0);
  });
});

describe("interop: kubectl over HTTPS with a generated kubeconfig", () => {
  it("bearer token", async (ctx) => {
    requireTool(kubectl, ctx);
    const sim = await startSim({ tls: true, token: "interop-token" });
    try {
      await sim.create(configMap("cm-tls"));
      const cache = join(sim.dir, "cache");
      const r = await run(kubectlBin(), ["--kubeconfig", sim.kubeconfig, "--cache-dir", cache, "get", "configmaps"]);
      expect(r.stderr).toBe("");
      expect(r.stdout).toMatch(/^cm-tls\s+1\s/m);
      const bad = await run(kubectlBin(), [
        "--kubeconfig",
        sim.kubeconfig,
        "--cache-dir",
        join(sim.dir, "cache2"),
        "--token",
        "wrong",
        "get",
        "configmaps",
      ]);
      expect(bad.code).toBe(1);
      expect(bad.stderr).toMatch(/Unauthorized|must be logged in/);
    } finally {
      await sim.close();
    }
  });

  it("client certificate", async (ctx) => {
    requireTool(kubectl, ctx);
    const sim = await startSim({ tls: true, clientCert: true });
    try {
      await sim.create(configMap("cm-x509"));
      const r = await run(kubectlBin(), [
        "--kubeconfig",
        sim.kubeconfig,
        "--cache-dir",
        join(sim.dir, "c"),
        "get",
        "cm",
      ]);
      expect(r.stderr).toBe("");
      expect(r.stdout).toMatch(/^cm-x509\s+1\s/m);
    } finally {
      await sim.close();
    }
  });
});
