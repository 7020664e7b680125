// kubectl against the simulator with a cluster inside it (sim-cluster over HTTP, in real time): the rollout commands
// a user types, as in the transcript.
import { appendFileSync } from "node:fs";
import { KubeClient } from "@informer-ts/client";
import { realClock } from "@informer-ts/clock";
import { silentLogger } from "@informer-ts/instrumentation";
import { DEFAULT_POD_STAGES, SimClusterRuntime, type Stage } from "@informer-ts/sim-cluster";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { run } from "./run.js";
import { type SimHandle, startSim } from "./sim.js";
import { checkKubectl, freshDir, kubectlBin, requireTool } from "./tools.js";

const kubectl = checkKubectl();
let sim: SimHandle | undefined;
let client: KubeClient | undefined;
const stop = new AbortController();
let done: Promise<void> | undefined;

/** The default stages 20 times faster: real time, so the test takes seconds. */
const FAST: Stage[] = DEFAULT_POD_STAGES.map((s) => ({
  ...s,
  ...(s.delay !== undefined && {
    delay: { ...s.delay, durationMs: (s.delay.durationMs ?? 0) / 20, jitterMs: (s.delay.jitterMs ?? 0) / 20 },
  }),
}));

beforeAll(async () => {
  if (!kubectl.ok) return;
  sim = await startSim();
  // No client-side rate limit (client-go's default 5 qps would pace every controller write).
  client = new KubeClient({ server: sim.url, qps: -1 }, { quiet: true });
  const runtime = new SimClusterRuntime({ client, clock: realClock, nodes: 3, stages: FAST, logger: silentLogger });
  done = runtime.run(stop.signal);
});

afterAll(async () => {
  stop.abort();
  await done;
  await client?.close();
  await sim?.close();
});

async function k(...args: string[]) {
  const cache = freshDir("kcache");
  const t0 = Date.now();
  const r = await run(kubectlBin(), ["--kubeconfig", sim!.kubeconfig, "--cache-dir", cache, ...args], {
    timeoutMs: 90_000,
  });
  if (process.env.DEBUG_K)
    appendFileSync("/tmp/k.log", `kubectl ${args.join(" ")}: ${Date.now() - t0} ms ${r.code} ${r.stderr}\n`);
  if (r.code !== 0) throw new Error(`kubectl ${args.join(" ")} exited ${r.code}: ${r.stderr}`);
  return r.stdout;
}

describe("kubectl with sim-cluster (e2e apps basics)", () => {
  it("kubectl create deployment web --replicas=3; rollout status completes; three Running pods on nodes", async (ctx) => {
    requireTool(kubectl, ctx);
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
    requireTool(kubectl, ctx);
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
    requireTool(kubectl, ctx);
    await k("delete", "deployment", "web", "--wait=true", "--timeout=60s");
    await expect
      .poll(async () => (await k("get", "pods,rs", "-l", "app=web", "--no-headers", "--ignore-not-found")).trim(), {
        timeout: 30_000,
        interval: 200,
      })
      .toBe("");
  });
});
