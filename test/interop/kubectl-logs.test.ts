// `kubectl logs` against the simulator with a cluster inside it (sim-cluster over HTTP, in real time): what a
// container printed, from the simulator's container output model (docs/sim-cluster.md, "Container output"), with the
// options kubectl passes (`--tail`, `--timestamps`, `--limit-bytes`, `-c`, `-f`).
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { useKubectlCluster } from "./kubectl-cluster-harness.js";
import { freshDir } from "./tools.js";

const { k, require: requireKubectl } = useKubectlCluster();

describe("kubectl logs with sim-cluster", () => {
  it("kubectl run … -- sh -c; kubectl logs prints the output, with --tail, --timestamps and --limit-bytes", async (ctx) => {
    requireKubectl(ctx);
    await k("create", "configmap", "greeting", "--from-literal=WHO=world");
    const overrides = JSON.stringify({
      spec: {
        containers: [
          {
            name: "greeter",
            image: "busybox",
            command: ["sh", "-c", "echo hello $WHO; printenv GREETING"],
            env: [{ name: "GREETING", value: "hi there" }],
            envFrom: [{ configMapRef: { name: "greeting" } }],
          },
        ],
      },
    });
    expect(await k("run", "greeter", "--image=busybox", "--restart=Never", `--overrides=${overrides}`)).toContain(
      "pod/greeter created",
    );
    await k("wait", "--for=jsonpath={.status.phase}=Succeeded", "pod/greeter", "--timeout=30s");
    expect(await k("logs", "greeter")).toBe("hello world\nhi there\n");
    expect(await k("logs", "greeter", "--tail=1")).toBe("hi there\n");
    expect(await k("logs", "greeter", "--limit-bytes=5")).toBe("hello");
    expect(await k("logs", "greeter", "--timestamps")).toMatch(
      /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z hello world\n\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z hi there\n$/,
    );
  });

  it("kubectl logs -c names a container of the pod; a wrong one is refused, naming it", async (ctx) => {
    requireKubectl(ctx);
    const pod = JSON.stringify({
      apiVersion: "v1",
      kind: "Pod",
      metadata: { name: "two" },
      spec: {
        restartPolicy: "Never",
        containers: [
          { name: "a", image: "busybox", command: ["echo", "from a"] },
          { name: "b", image: "busybox", command: ["echo", "from b"] },
        ],
      },
    });
    const file = join(freshDir("logs"), "two.json");
    writeFileSync(file, pod);
    await k("create", "-f", file);
    await k("wait", "--for=jsonpath={.status.phase}=Succeeded", "pod/two", "--timeout=30s");
    expect(await k("logs", "two", "-c", "b")).toBe("from b\n");
    await expect(k("logs", "two", "-c", "x")).rejects.toThrow(/container x is not valid for pod two/);
  });

  // Whether the container still runs when kubectl connects depends on real-time scheduling; the stream's end on the
  // container's end is tested on the HTTP face (packages/sim-apiserver/src/http/pod-log.test.ts).
  it("kubectl logs -f prints the output and returns once the container has ended", async (ctx) => {
    requireKubectl(ctx);
    const overrides = JSON.stringify({
      spec: { containers: [{ name: "once", image: "busybox", command: ["sh", "-c", "echo started; echo done"] }] },
    });
    await k("run", "once", "--image=busybox", "--restart=Never", `--overrides=${overrides}`);
    await k("wait", "--for=condition=Ready", "pod/once", "--timeout=30s");
    expect(await k("logs", "-f", "once")).toBe("started\ndone\n");
    expect(await k("get", "pod", "once", "-o", "jsonpath={.status.phase}")).toBe("Succeeded");
  });
});
