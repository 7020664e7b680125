// kubectl's typed-clientset writes against the simulator with a cluster inside it: the bodies kubectl sends as
// protobuf (application/vnd.kubernetes.protobuf) to the review kinds, serviceaccounts/token and pods/eviction —
// `kubectl auth can-i`, `auth can-i --list`, `auth whoami`, `create token`, `drain`.
import { describe, expect, it } from "vitest";
import { useKubectlCluster } from "./kubectl-cluster-harness.js";
import { spawnStreaming } from "./run.js";
import { freshDir, kubectlBin } from "./tools.js";

const { k, cluster, require: requireKubectl } = useKubectlCluster();

/** The cluster's three nodes exist (watched with `kubectl get nodes -w`) and are Ready: a drain may run first. */
async function nodesReady(): Promise<void> {
  const w = spawnStreaming(kubectlBin(), [
    "--kubeconfig",
    cluster().sim.kubeconfig,
    "--cache-dir",
    freshDir("kcache"),
    "get",
    "nodes",
    "-w",
    "-o",
    "name",
  ]);
  try {
    for (const n of ["node-0", "node-1", "node-2"]) await w.waitForLine(new RegExp(`^node/${n}$`), 30_000);
  } finally {
    await w.kill();
  }
  await k("wait", "--for=condition=Ready", "node/node-0", "node/node-1", "node/node-2", "--timeout=30s");
}

describe("kubectl typed writes with protobuf bodies", () => {
  it("kubectl auth can-i (a SelfSubjectAccessReview) answers yes, for resources and non-resource URLs", async (ctx) => {
    requireKubectl(ctx);
    // The simulator authorizes as --authorization-mode=AlwaysAllow: every answer is yes (exit code 0).
    expect((await k("auth", "can-i", "create", "pods")).trim()).toBe("yes");
    expect((await k("auth", "can-i", "delete", "deployments.apps", "-n", "kube-system")).trim()).toBe("yes");
    expect((await k("auth", "can-i", "get", "/healthz")).trim()).toBe("yes");
  });

  it("kubectl auth can-i --list (a SelfSubjectRulesReview) prints the rules", async (ctx) => {
    requireKubectl(ctx);
    const out = await k("auth", "can-i", "--list", "-n", "default");
    expect(out).toMatch(/^Resources\s+Non-Resource URLs\s+Resource Names\s+Verbs/);
    expect(out).toMatch(/\n\*\.\*\s+\[\]\s+\[\]\s+\[\*\]/);
  });

  it("kubectl auth whoami (a SelfSubjectReview) prints the requester", async (ctx) => {
    requireKubectl(ctx);
    const out = await k("auth", "whoami");
    expect(out).toMatch(/Username\s+system:anonymous/);
    expect(out).toMatch(/Groups\s+\[system:unauthenticated\]/);
  });

  it("kubectl create token SA (a TokenRequest on serviceaccounts/token) prints a token", async (ctx) => {
    requireKubectl(ctx);
    expect(await k("create", "serviceaccount", "bot")).toContain("serviceaccount/bot created");
    const token = (await k("create", "token", "bot", "--duration=10m", "--audience=vault")).trim();
    expect(token).toMatch(/^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/);
    const claims = JSON.parse(Buffer.from(token.split(".")[1]!, "base64url").toString("utf8")) as {
      sub: string;
      aud: string[];
      exp: number;
      iat: number;
    };
    expect(claims.sub).toBe("system:serviceaccount:default:bot");
    expect(claims.aud).toEqual(["vault"]);
    expect(claims.exp - claims.iat).toBe(600);
  });

  it("kubectl drain node-0 evicts its pods through pods/eviction; the node is cordoned; the pods come back elsewhere", async (ctx) => {
    requireKubectl(ctx);
    await nodesReady();
    // Only node-0 schedulable while the Deployment comes up, so that every pod starts there.
    await k("cordon", "node-1", "node-2");
    await k("create", "deployment", "drained", "--image=nginx", "--replicas=3");
    expect(await k("rollout", "status", "deploy/drained", "--timeout=60s")).toContain("successfully rolled out");
    const nodesOf = async () =>
      (await k("get", "pods", "-l", "app=drained", "-o", 'jsonpath={range .items[*]}{.spec.nodeName}{"\\n"}{end}'))
        .trim()
        .split("\n");
    expect(await nodesOf()).toEqual(["node-0", "node-0", "node-0"]);
    await k("uncordon", "node-1", "node-2");
    // A short grace period (the Eviction's deleteOptions) so that the kubelet stand-in ends the pods quickly.
    const out = await k(
      "drain",
      "node-0",
      "--ignore-daemonsets",
      "--delete-emptydir-data",
      "--grace-period=2",
      "--timeout=60s",
    );
    expect(out).toContain("node/node-0 cordoned");
    expect(out.match(/^evicting pod default\/drained-/gm)).toHaveLength(3);
    expect(out.match(/^pod\/drained-\S+ evicted$/gm)).toHaveLength(3);
    expect(out).toContain("node/node-0 drained");
    expect(await k("get", "node", "node-0", "-o", "jsonpath={.spec.unschedulable}")).toBe("true");
    expect(await k("rollout", "status", "deploy/drained", "--timeout=60s")).toContain("successfully rolled out");
    const after = await nodesOf();
    expect(after).toHaveLength(3);
    for (const n of after) expect(n).toMatch(/^node-[12]$/);
  });

  it("kubectl drain honours a PodDisruptionBudget: the eviction gets 429 and drain times out", async (ctx) => {
    requireKubectl(ctx);
    await nodesReady();
    await k("uncordon", "node-0");
    await k("cordon", "node-1", "node-2");
    await k("create", "deployment", "guarded", "--image=nginx", "--replicas=1");
    expect(await k("rollout", "status", "deploy/guarded", "--timeout=60s")).toContain("successfully rolled out");
    await k("create", "poddisruptionbudget", "guarded", "--selector=app=guarded", "--min-available=1");
    await k("uncordon", "node-1", "node-2");
    // The disruption controller computes the budget: 1 healthy pod, 1 required, so no disruption is allowed.
    await k("wait", "--for=jsonpath={.status.observedGeneration}=1", "pdb/guarded", "--timeout=30s");
    expect(
      await k(
        "get",
        "pdb",
        "guarded",
        "-o",
        "jsonpath={.status.currentHealthy}/{.status.desiredHealthy}/{.status.disruptionsAllowed}",
      ),
    ).toBe("1/1/0");
    const err = await k("drain", "node-0", "--ignore-daemonsets", "--pod-selector=app=guarded", "--timeout=3s").then(
      () => "",
      (e: Error) => e.message,
    );
    expect(err).toContain("Cannot evict pod as it would violate the pod's disruption budget.");
    expect(err).toMatch(/global timeout reached: 3s/);
    expect(await k("get", "pods", "-l", "app=guarded", "-o", "jsonpath={.items[*].spec.nodeName}")).toBe("node-0");
    // With a second replica the budget allows one disruption: the drain evicts and completes.
    await k("scale", "deploy/guarded", "--replicas=2");
    await k("wait", "--for=jsonpath={.status.disruptionsAllowed}=1", "pdb/guarded", "--timeout=30s");
    const out = await k(
      "drain",
      "node-0",
      "--ignore-daemonsets",
      "--pod-selector=app=guarded",
      "--grace-period=2",
      "--timeout=60s",
    );
    expect(out).toContain("node/node-0 drained");
  });
});
