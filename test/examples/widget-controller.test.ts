// Example (b), the Widget controller, as two replicas under leader election over loopback HTTP against the simulated
// apiserver: only the leader reconciles; the leader is killed mid-run (its process stops without releasing the
// Lease) and the standby takes over once the lease expired and applies the next spec change; deleting a Widget runs the
// finalizer (registry entry removed) and the garbage collector removes its ConfigMap. `status.observedGeneration` is
// written through `/status` and follows each generation without bumping it.
import type { KubeObject } from "@informer-ts/apimachinery";
import { builtinResources } from "@informer-ts/client";
import { DEFAULT_VERBS } from "@informer-ts/sim-apiserver";
import { afterEach, describe, expect, it } from "vitest";
import {
  REGISTRY_NAMESPACE,
  registryName,
  setupWidgetController,
  WIDGET_FINALIZER,
  widgets,
} from "../../examples/widget-controller/src/widget-controller.js";
import { type SimCluster, startSimCluster } from "./sim-http.js";

let cluster: SimCluster | undefined;
afterEach(async () => {
  await cluster?.close();
  cluster = undefined;
});

const W = "widgets.example.com";

describe("example: widget-controller", () => {
  it("two replicas: the leader reconciles, a killed leader is replaced, finalizer and GC work end to end", async () => {
    cluster = await startSimCluster([
      {
        group: widgets.group,
        version: widgets.version,
        resource: widgets.resource,
        kind: widgets.kind,
        namespaced: true,
        singularName: "widget",
        verbs: DEFAULT_VERBS,
        custom: true,
        subresources: ["status"],
      },
    ]);
    const c = cluster;
    const admin = c.client();
    await admin.create(builtinResources.namespaces, { metadata: { name: REGISTRY_NAMESPACE } });

    const reconciledBy = { a: [] as string[], b: [] as string[] };
    const replicas = (["a", "b"] as const).map((id) => {
      const client = c.client();
      const mgr = c.manager(client, {
        leaderElection: { namespace: "kube-system", name: "widget-controller", identity: id },
      });
      const ctrl = setupWidgetController(mgr, client);
      ctrl.events$.subscribe((e) => {
        if (e.type === "reconcileError") reconciledBy[id].push(`error:${e.key}:${e.error.message}`);
      });
      mgr.informerFor(widgets); // already shared; just to read the cache below
      const ac = new AbortController();
      const run = mgr.run(ac.signal).catch((e: unknown) => e);
      return { id, mgr, ac, run };
    });
    const leader = () => replicas.find((r) => r.mgr.elector?.isLeader());
    expect(await c.until(() => leader() !== undefined)).toBe(true);
    const first = leader()!;
    const standby = replicas.find((r) => r !== first)!;
    expect(await c.until(() => standby.mgr.notReadyReason() === undefined)).toBe(true);

    await admin.create(widgets, {
      apiVersion: "example.com/v1",
      kind: "Widget",
      metadata: { name: "w1", namespace: "default" },
      spec: { size: 3 },
    });
    const widget = () => c.stored(W, "default", "w1");
    expect(await c.until(() => c.stored("configmaps", "default", "w1-widget") !== undefined)).toBe(true);
    expect(widget()?.metadata?.finalizers).toEqual([WIDGET_FINALIZER]);
    expect(c.stored("configmaps", "default", "w1-widget")?.data).toEqual({ size: "3" });
    expect(c.stored("configmaps", REGISTRY_NAMESPACE, registryName("default", "w1"))).toBeDefined();
    // Status through /status: observedGeneration catches up, and the status write leaves the generation alone.
    const status = () => widget()?.status as { observedGeneration?: number; size?: number } | undefined;
    expect(await c.until(() => status()?.observedGeneration === 1)).toBe(true);
    expect(status()).toEqual({ observedGeneration: 1, size: 3 });
    expect(widget()?.metadata?.generation).toBe(1);

    // The leader dies without releasing its lease.
    first.ac.abort();
    const killedAt = c.clock.now();
    const cur = widget()!;
    await admin.update(widgets, { ...cur, spec: { size: 5 } } as KubeObject);
    expect(await c.until(() => standby.mgr.elector?.isLeader() === true, 30_000)).toBe(true);
    expect(c.clock.now() - killedAt).toBeLessThanOrEqual(15_000 + 2_000 * 2.2 + 1_000);
    expect(
      await c.until(
        () => (c.stored("configmaps", "default", "w1-widget")?.data as { size?: string } | undefined)?.size === "5",
      ),
    ).toBe(true);
    expect(await c.until(() => status()?.observedGeneration === 2)).toBe(true);
    expect(status()).toEqual({ observedGeneration: 2, size: 5 });
    expect(widget()?.metadata?.generation).toBe(2);

    // Delete: the server bumps the generation as it sets deletionTimestamp (so generationChangedPredicate alone wakes
    // the controller); the finalizer removes the registry entry, then the Widget goes and the GC removes its ConfigMap.
    await admin.delete(widgets, "w1", { namespace: "default" });
    expect(await c.until(() => widget() === undefined)).toBe(true);
    expect(c.stored("configmaps", REGISTRY_NAMESPACE, registryName("default", "w1"))).toBeUndefined();
    expect(await c.until(() => c.stored("configmaps", "default", "w1-widget") === undefined)).toBe(true);

    standby.ac.abort();
    await c.advance(2000);
    expect(await first.run).toBeUndefined();
    expect(await standby.run).toBeUndefined();
    expect(reconciledBy.a.concat(reconciledBy.b).filter((e) => !e.includes("409") && !e.includes("modified"))).toEqual(
      [],
    );
  });
});
