// The kubelet stand-in's container events in the simulated cluster (in-process, virtual time), as a kubelet records
// them (pkg/kubelet/events reasons, kuberuntime's and images' messages).
import { type Pod, resources } from "@informer-ts/client";
import { createSimCluster, type SimCluster } from "@informer-ts/testing";
import { afterEach, describe, expect, it } from "vitest";
import { all, stored } from "./cluster-helpers.js";

let c: SimCluster | undefined;
afterEach(async () => {
  await c?.close();
  c = undefined;
});

interface Ev {
  reason?: string;
  message?: string;
  source?: { component?: string; host?: string };
  reportingComponent?: string;
  reportingInstance?: string;
  involvedObject?: { kind?: string; name?: string; fieldPath?: string };
}

const pod = (name: string, node: string, containers: { name: string; image: string; imagePullPolicy?: string }[]) =>
  ({
    apiVersion: "v1",
    kind: "Pod",
    metadata: { name, namespace: "default" },
    spec: { nodeName: node, containers },
  }) as Pod;

const eventsOf = (name: string) =>
  all<Ev>(c!, "events")
    .filter((e) => e.involvedObject?.name === name && e.source?.component === "kubelet")
    .map((e) => [e.involvedObject?.fieldPath, e.reason, e.message]);

describe("kubelet events in the simulated cluster", () => {
  it("each container is pulled, created and started, with its name in the messages; deletion stops it (Killing)", async () => {
    c = await createSimCluster({ cluster: { nodes: 1 } });
    const node = "node-0";
    await c.client.create(
      resources.pods,
      pod("two", node, [
        { name: "web", image: "nginx:1.27" },
        { name: "side", image: "busybox" },
      ]),
    );
    await c.settle({ until: () => stored<Pod>(c!, "pods", "default", "two")?.status?.phase === "Running" });
    await c.settle();
    expect(eventsOf("two")).toEqual([
      ["spec.containers{web}", "Pulling", 'Pulling image "nginx:1.27"'],
      ["spec.containers{web}", "Pulled", 'Successfully pulled image "nginx:1.27" in 0s (0s including waiting)'],
      ["spec.containers{web}", "Created", "Created container: web"],
      ["spec.containers{web}", "Started", "Started container web"],
      ["spec.containers{side}", "Pulling", 'Pulling image "busybox"'],
      ["spec.containers{side}", "Pulled", 'Successfully pulled image "busybox" in 0s (0s including waiting)'],
      ["spec.containers{side}", "Created", "Created container: side"],
      ["spec.containers{side}", "Started", "Started container side"],
    ]);
    // Reported by that node's kubelet.
    const started = all<Ev>(c, "events").find((e) => e.involvedObject?.name === "two" && e.reason === "Started");
    expect(started).toMatchObject({
      source: { component: "kubelet", host: node },
      reportingComponent: "kubelet",
      reportingInstance: node,
      involvedObject: { kind: "Pod", name: "two", fieldPath: "spec.containers{web}" },
    });
    // A second pod on that node: the tagged image is present (IfNotPresent), the untagged one is pulled again (Always).
    await c.client.create(
      resources.pods,
      pod("again", node, [
        { name: "web", image: "nginx:1.27" },
        { name: "side", image: "busybox" },
      ]),
    );
    await c.settle({ until: () => stored<Pod>(c!, "pods", "default", "again")?.status?.phase === "Running" });
    await c.settle();
    expect(eventsOf("again").map((e) => e[1])).toEqual([
      "Pulled",
      "Created",
      "Started",
      "Pulling",
      "Pulled",
      "Created",
      "Started",
    ]);
    expect(eventsOf("again")[0]?.[2]).toBe('Container image "nginx:1.27" already present on machine');
    await c.client.delete(resources.pods, "two", { namespace: "default" });
    await c.settle({ until: () => stored(c!, "pods", "default", "two") === undefined });
    await c.settle();
    expect(eventsOf("two").filter((e) => e[1] === "Killing")).toEqual([
      ["spec.containers{web}", "Killing", "Stopping container web"],
      ["spec.containers{side}", "Killing", "Stopping container side"],
    ]);
  });
});
