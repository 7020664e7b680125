// kubectl against the simulator with a cluster inside it (sim-cluster over HTTP, in real time): the rollout commands
// a user types, as in the transcript.
import { describe, expect, it } from "vitest";
import { useKubectlCluster } from "./kubectl-cluster-harness.js";

const { k, require: requireKubectl } = useKubectlCluster();

describe("kubectl with sim-cluster (e2e apps basics)", () => {
  it("kubectl create deployment web --replicas=3; rollout status completes; three Running pods on nodes", async (ctx) => {
    requireKubectl(ctx);
    expect(await k("create", "deployment", "web", "--image=nginx", "--replicas=3")).toContain(
      "deployment.apps/web created",
    );
    expect(await k("rollout", "status", "deploy/web", "--timeout=60s")).toContain(
      'deployment "web" successfully rolled out',
    );
    const pods = (
      await k(
        "get",
        "pods",
        "-l",
        "app=web",
        "-o",
        "custom-columns=NAME:.metadata.name,PHASE:.status.phase,NODE:.spec.nodeName",
        "--no-headers",
      )
    )
      .trim()
      .split("\n");
    expect(pods).toHaveLength(3);
    for (const line of pods) expect(line).toMatch(/^web-\S+-\S+\s+Running\s+node-[0-2]$/);
    expect(await k("get", "node", "node-0", "-o", "jsonpath={.status.conditions[?(@.type=='Ready')].status}")).toBe(
      "True",
    );
  });

  it("kubectl scale, set image, rollout undo and rollout history", async (ctx) => {
    requireKubectl(ctx);
    await k("scale", "deploy/web", "--replicas=5");
    expect(await k("rollout", "status", "deploy/web", "--timeout=60s")).toContain("successfully rolled out");
    await k("set", "image", "deploy/web", "nginx=nginx:1.28");
    expect(await k("rollout", "status", "deploy/web", "--timeout=60s")).toContain("successfully rolled out");
    expect(
      await k("get", "deploy/web", "-o", "jsonpath={.metadata.annotations.deployment\\.kubernetes\\.io/revision}"),
    ).toBe("2");
    expect(await k("rollout", "undo", "deploy/web")).toContain("rolled back");
    expect(await k("rollout", "status", "deploy/web", "--timeout=60s")).toContain("successfully rolled out");
    expect(await k("get", "deploy/web", "-o", "jsonpath={.spec.template.spec.containers[0].image}")).toBe("nginx");
    expect(await k("rollout", "history", "deploy/web")).toMatch(/2\s+.*\n3\s+/);
    const events = await k(
      "get",
      "events",
      "-o",
      "custom-columns=REASON:.reason,OBJECT:.involvedObject.name",
      "--no-headers",
    );
    expect(events).toContain("ScalingReplicaSet");
    expect(events).toContain("Scheduled");
  });

  it("deployment reaping should cascade to its replica sets and pods (test/e2e/apps/deployment.go, with kubectl delete)", async (ctx) => {
    requireKubectl(ctx);
    await k("delete", "deployment", "web", "--wait=true", "--timeout=60s");
    await expect
      .poll(async () => (await k("get", "pods,rs", "-l", "app=web", "--no-headers", "--ignore-not-found")).trim(), {
        timeout: 30_000,
        interval: 200,
      })
      .toBe("");
  });
});
