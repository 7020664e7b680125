// kubectl v1.32's typed creates against the simulated apiserver (issue #10 item 1, issue #21): `kubectl create
// configmap|secret generic|ns|deployment|job|service|serviceaccount|cronjob|clusterrole|clusterrolebinding|role|
// rolebinding|poddisruptionbudget|priorityclass|quota|ingress` send their bodies as application/vnd.kubernetes.protobuf (and do not fall back
// to JSON on 415), so they exercise the protobuf decoder end to end. Each stored object must equal what
// `--dry-run=client -o json` says kubectl sends, modulo the fields the server sets.
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { useKubectlSim } from "./kubectl-cluster-harness.js";

type Obj = Record<string, unknown> & { metadata?: Record<string, unknown>; spec?: unknown; status?: unknown };

/** Drops what the server owns (uid, resourceVersion, creationTimestamp, generation, namespace, status, defaults). */
function serverSetFieldsRemoved(stored: Obj, sent: Obj): Obj {
  const out = structuredClone(stored);
  const meta = out.metadata ?? {};
  for (const k of ["uid", "resourceVersion", "creationTimestamp", "generation", "managedFields"]) delete meta[k];
  if (sent.metadata?.namespace === undefined) delete meta.namespace;
  delete out.status;
  // Namespaces: the registry adds spec.finalizers ["kubernetes"].
  if (out.kind === "Namespace" && sent.spec === undefined) delete out.spec;
  return out;
}

/**
 * What is not the client's to decide: `creationTimestamp: null` and the status (kubectl sends an empty one, e.g.
 * `{"loadBalancer":{}}` for a Service; the registry resets status on create).
 */
function clientOnlyFieldsRemoved(sent: Obj): Obj {
  const out = structuredClone(sent);
  if (out.metadata?.creationTimestamp === null) delete out.metadata.creationTimestamp;
  delete out.status;
  if (out.kind === "Namespace" && JSON.stringify(out.spec) === "{}") delete out.spec;
  return out;
}

/**
 * Whether `stored` holds everything `sent` holds (the server's defaults may add fields: a Deployment's strategy,
 * a Pod spec's dnsPolicy, a Service's clusterIP): objects key by key, lists item by item and of the same length,
 * other values equal; an empty object sent (`strategy: {}`) matches any object the defaults filled. Returns the
 * path of the first difference, `""` when none.
 */
function missingFrom(stored: unknown, sent: unknown, path = ""): string {
  if (Array.isArray(sent)) {
    if (!Array.isArray(stored) || stored.length !== sent.length) return path || ".";
    for (let i = 0; i < sent.length; i++) {
      const d = missingFrom(stored[i], sent[i], `${path}[${i}]`);
      if (d !== "") return d;
    }
    return "";
  }
  if (typeof sent === "object" && sent !== null) {
    if (typeof stored !== "object" || stored === null || Array.isArray(stored)) return path || ".";
    for (const [k, v] of Object.entries(sent)) {
      const d = missingFrom((stored as Record<string, unknown>)[k], v, `${path}.${k}`);
      if (d !== "") return d;
    }
    return "";
  }
  return stored === sent ? "" : path || ".";
}

describe("interop: kubectl typed creates (protobuf bodies)", () => {
  const { k, dir, require: requireKubectl } = useKubectlSim("kubectl-create");

  /** Runs `kubectl create <args>` for real (expecting `<resource>/<name> created`) and checks the stored object. */
  async function createAndCompare(args: string[], created: string, get: string[]): Promise<Obj> {
    // Flags go before a `--` (what follows it is the container's command).
    const dash = args.indexOf("--");
    const at = dash < 0 ? args.length : dash;
    const dry = await k(["create", ...args.slice(0, at), "--dry-run=client", "-o", "json", ...args.slice(at)]);
    expect(dry.stderr).toBe("");
    const sent = JSON.parse(dry.stdout) as Obj;
    const r = await k(["create", ...args]);
    expect(r.stderr).toBe("");
    expect(r.stdout.trim()).toBe(created);
    const got = await k(["get", ...get, "-o", "json"]);
    expect(got.stderr).toBe("");
    const stored = JSON.parse(got.stdout) as Obj;
    const want = clientOnlyFieldsRemoved(sent);
    expect(missingFrom(serverSetFieldsRemoved(stored, want), want)).toBe("");
    return stored;
  }

  it("the typed creates really send protobuf, and the server answers JSON", async (ctx) => {
    requireKubectl(ctx);
    const r = await k(["create", "configmap", "pb-probe", "--from-literal=a=b", "-v=8"]);
    expect(r.stdout.trim()).toBe("configmap/pb-probe created");
    expect(r.stderr).toContain("Content-Type: application/vnd.kubernetes.protobuf");
    expect(r.stderr).toMatch(/Accept: application\/vnd\.kubernetes\.protobuf, ?application\/json/);
    expect(r.stderr).toContain("Response Status: 201 Created");
  });

  it("create configmap (literals, a binary file) and secret generic store what kubectl sends", async (ctx) => {
    requireKubectl(ctx);
    const bin = join(dir(), "blob.bin");
    writeFileSync(bin, Buffer.from([0, 159, 146, 150, 255]));
    const cm = await createAndCompare(
      ["configmap", "kc-cm", "--from-literal=a=b", "--from-literal=empty=", `--from-file=blob=${bin}`],
      "configmap/kc-cm created",
      ["configmap", "kc-cm"],
    );
    expect(cm.binaryData).toEqual({ blob: "AJ+Slv8=" });
    const sec = await createAndCompare(
      ["secret", "generic", "kc-secret", "--from-literal=k=v", "--type=example.com/t"],
      "secret/kc-secret created",
      ["secret", "kc-secret"],
    );
    expect(sec.data).toEqual({ k: Buffer.from("v").toString("base64") });
    expect(sec.type).toBe("example.com/t");
  });

  it("create ns, deployment (replicas, port, command), job, service, serviceaccount; get lists them", async (ctx) => {
    requireKubectl(ctx);
    await createAndCompare(["ns", "kc-ns"], "namespace/kc-ns created", ["ns", "kc-ns"]);
    const dep = await createAndCompare(
      [
        "deployment",
        "kc-dep",
        "-n",
        "kc-ns",
        "--image=nginx:1.27",
        "--replicas=3",
        "--port=8080",
        "--",
        "nginx",
        "-g",
        "daemon off;",
      ],
      "deployment.apps/kc-dep created",
      ["deployment", "kc-dep", "-n", "kc-ns"],
    );
    expect(dep.spec).toMatchObject({ replicas: 3, selector: { matchLabels: { app: "kc-dep" } } });
    const zero = await createAndCompare(
      ["deployment", "kc-zero", "--image=busybox", "--replicas=0"],
      "deployment.apps/kc-zero created",
      ["deployment", "kc-zero"],
    );
    // replicas is a pointer in Go: an explicit 0 travels and must not be mistaken for "unset".
    expect((zero.spec as { replicas: number }).replicas).toBe(0);
    await createAndCompare(
      ["job", "kc-job", "--image=busybox", "--", "sh", "-c", "echo hi"],
      "job.batch/kc-job created",
      ["job", "kc-job"],
    );
    await createAndCompare(
      ["service", "clusterip", "kc-svc", "--tcp=80:8080", "--tcp=443:https"],
      "service/kc-svc created",
      ["service", "kc-svc"],
    );
    await createAndCompare(["serviceaccount", "kc-sa"], "serviceaccount/kc-sa created", ["serviceaccount", "kc-sa"]);
    const deps = await k(["get", "deployments", "-n", "kc-ns"]);
    expect(deps.stdout).toMatch(/^kc-dep\s/m);
    const jobs = await k(["get", "jobs"]);
    expect(jobs.stderr).toBe("");
    expect(jobs.stdout).toMatch(/^kc-job\s/m);
    const nss = await k(["get", "ns"]);
    expect(nss.stdout).toMatch(/^kc-ns\s+Active\s/m);
  });

  it("create cronjob, clusterrole, clusterrolebinding, role, rolebinding, pdb, priorityclass, quota, ingress", async (ctx) => {
    requireKubectl(ctx);
    const cj = await createAndCompare(
      ["cronjob", "kc-cj", "--image=busybox", "--schedule=*/1 * * * *", "--restart=OnFailure", "--", "date"],
      "cronjob.batch/kc-cj created",
      ["cronjob", "kc-cj"],
    );
    expect((cj.spec as { schedule: string }).schedule).toBe("*/1 * * * *");
    const cr = await createAndCompare(
      ["clusterrole", "kc-cr", "--verb=get,list", "--resource=pods,deployments.apps"],
      "clusterrole.rbac.authorization.k8s.io/kc-cr created",
      ["clusterrole", "kc-cr"],
    );
    expect((cr.rules as unknown[]).length).toBeGreaterThan(1);
    await createAndCompare(
      ["clusterrolebinding", "kc-crb", "--clusterrole=kc-cr", "--group=devs", "--serviceaccount=default:default"],
      "clusterrolebinding.rbac.authorization.k8s.io/kc-crb created",
      ["clusterrolebinding", "kc-crb"],
    );
    await createAndCompare(
      ["role", "kc-role", "--verb=get", "--resource=configmaps", "--resource-name=a"],
      "role.rbac.authorization.k8s.io/kc-role created",
      ["role", "kc-role"],
    );
    await createAndCompare(
      ["rolebinding", "kc-rb", "--role=kc-role", "--user=alice"],
      "rolebinding.rbac.authorization.k8s.io/kc-rb created",
      ["rolebinding", "kc-rb"],
    );
    const pdb = await createAndCompare(
      ["poddisruptionbudget", "kc-pdb", "--selector=app=w", "--min-available=50%"],
      "poddisruptionbudget.policy/kc-pdb created",
      ["poddisruptionbudget", "kc-pdb"],
    );
    expect((pdb.spec as { minAvailable: unknown }).minAvailable).toBe("50%");
    const pc = await createAndCompare(
      ["priorityclass", "kc-pc", "--value=1000", "--description=high", "--preemption-policy=Never"],
      "priorityclass.scheduling.k8s.io/kc-pc created",
      ["priorityclass", "kc-pc"],
    );
    expect(pc.value).toBe(1000);
    await createAndCompare(["quota", "kc-quota", "--hard=pods=10,services=5"], "resourcequota/kc-quota created", [
      "quota",
      "kc-quota",
    ]);
    await createAndCompare(
      ["ingress", "kc-ing", "--class=nginx", "--rule=foo.com/bar*=svc1:8080,tls=my-cert"],
      "ingress.networking.k8s.io/kc-ing created",
      ["ingress", "kc-ing"],
    );
    const cjs = await k(["get", "cronjobs"]);
    expect(cjs.stderr).toBe("");
    // upstream's printCronJob columns (the simulator's table printer), not the default NAME/CREATED AT
    expect(cjs.stdout).toMatch(/^NAME\s+SCHEDULE\s+TIMEZONE\s+SUSPEND\s+ACTIVE\s+LAST SCHEDULE\s+AGE$/m);
    expect(cjs.stdout).toMatch(/^kc-cj\s+\*\/1 \* \* \* \*\s+<none>\s+False\s+0\s+<none>\s+\S+$/m);
  });

  it("a protobuf create into a missing namespace gets the JSON path's NotFound", async (ctx) => {
    requireKubectl(ctx);
    const r = await k(["create", "configmap", "x", "-n", "no-such-ns", "--from-literal=a=b"]);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('namespaces "no-such-ns" not found');
  });
});
