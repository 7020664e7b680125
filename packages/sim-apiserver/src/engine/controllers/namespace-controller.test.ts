import { fc, test } from "@fast-check/vitest";
import { type KubeObject, statusOf } from "@informer-ts/apimachinery";
import { FakeClock, seededRand } from "@informer-ts/clock";
import { describe, expect, it } from "vitest";
import type { KubeVersion } from "../kube-version.js";
import { SimApiServer } from "../sim-apiserver.js";

const DELAY = 10;

function setup(kubeVersion: KubeVersion = "1.34") {
  const clock = new FakeClock();
  const engine = new SimApiServer({
    clock,
    rand: seededRand(8),
    kubeVersion,
    compactionIntervalMs: 0,
    progressNotifyIntervalMs: 0,
    controllers: { delayMs: DELAY },
  });
  return { clock, engine };
}

async function settleControllers(clock: FakeClock, engine: SimApiServer): Promise<void> {
  for (let i = 0; i < 100 && (engine.namespaceController?.pending || engine.garbageCollector?.pending); i++) {
    await clock.step(DELAY);
  }
}

async function names(engine: SimApiServer, resource: string, ns: string): Promise<string[]> {
  return (await engine.list(resource, ns)).items.map((o) => o.metadata?.name ?? "");
}

async function contentWithAHeldPod(kubeVersion: KubeVersion) {
  const { clock, engine } = setup(kubeVersion);
  await engine.create("namespaces", "", { metadata: { name: "ns" } });
  await engine.create("pods", "ns", {
    metadata: { name: "p", finalizers: ["example.com/hold"] },
    spec: { containers: [{ name: "c", image: "i" }] },
  });
  await engine.create("configmaps", "ns", { metadata: { name: "cm" } });
  await engine.delete("namespaces", "", "ns");
  await settleControllers(clock, engine);
  return { clock, engine };
}

describe("NamespaceController (pkg/controller/namespace/deletion)", () => {
  it("OrderedNamespaceDeletion (1.34): a ConfigMap stays while a finalizer holds a pod, and goes once the pod is gone", async () => {
    const { clock, engine } = await contentWithAHeldPod("1.34");
    expect(await names(engine, "configmaps", "ns")).toEqual(["cm"]);
    const ns = await engine.get("namespaces", "", "ns");
    const conditions = (ns.status as { conditions: Array<Record<string, string>> }).conditions;
    expect(conditions.map((c) => [c.type, c.status, c.reason])).toEqual([
      ["NamespaceDeletionDiscoveryFailure", "False", "ResourcesDiscovered"],
      ["NamespaceDeletionGroupVersionParsingFailure", "False", "ParsedGroupVersions"],
      ["NamespaceDeletionContentFailure", "False", "ContentDeleted"],
      ["NamespaceContentRemaining", "True", "SomeResourcesRemain"],
      ["NamespaceFinalizersRemaining", "True", "SomeFinalizersRemain"],
    ]);
    expect(conditions[3]!.message).toBe("Some resources are remaining: pods. has 1 resource instances");
    expect(conditions[4]!.message).toBe(
      "Some content in the namespace has finalizers remaining: example.com/hold in 1 resource instances",
    );
    const pod = await engine.get("pods", "ns", "p");
    await engine.update("pods", "ns", "p", { ...pod, metadata: { ...pod.metadata, finalizers: [] } });
    await settleControllers(clock, engine);
    expect(statusOf(await engine.get("namespaces", "", "ns").catch((e: unknown) => e))?.code).toBe(404);
    engine.stop();
  });

  it("before 1.33 every resource's content goes in the same pass: the ConfigMap is deleted while the pod is held", async () => {
    const { engine } = await contentWithAHeldPod("1.31");
    expect(await names(engine, "configmaps", "ns")).toEqual([]);
    expect(await names(engine, "pods", "ns")).toEqual(["p"]);
    engine.stop();
  });

  it("/finalize replaces the spec finalizers; a terminating namespace left without finalizers is deleted", async () => {
    const { engine } = setup();
    engine.namespaceController?.stop();
    await engine.create("namespaces", "", { metadata: { name: "f" } });
    await engine.delete("namespaces", "", "f");
    const ns = await engine.get("namespaces", "", "f");
    expect((ns.spec as { finalizers: string[] }).finalizers).toEqual(["kubernetes"]);
    const stale: KubeObject = { ...ns, metadata: { ...ns.metadata, resourceVersion: "1" }, spec: { finalizers: [] } };
    const conflict = await engine.requests
      .update("namespaces", "", "f", stale, { subresource: "finalize" })
      .catch((e) => e);
    expect(statusOf(conflict)?.code).toBe(409);
    await engine.requests.update(
      "namespaces",
      "",
      "f",
      { ...ns, spec: { finalizers: [] } },
      { subresource: "finalize" },
    );
    expect(statusOf(await engine.get("namespaces", "", "f").catch((e: unknown) => e))?.code).toBe(404);
    engine.stop();
  });
});

describe("NamespaceController: OrderedNamespaceDeletion as a property", () => {
  const content = fc.array(
    fc.record({ kind: fc.constantFrom("pods", "configmaps", "secrets", "services"), held: fc.boolean() }),
    { minLength: 1, maxLength: 8 },
  );

  test.prop([content, fc.array(fc.nat(7), { maxLength: 8 })], { numRuns: 40 })(
    "no other object of a terminating namespace is deleted while one of its pods exists, and all goes in the end",
    async (objects, releases) => {
      const { clock, engine } = setup("1.34");
      await engine.create("namespaces", "", { metadata: { name: "p" } });
      const names: Array<[string, string]> = [];
      for (let i = 0; i < objects.length; i++) {
        const o = objects[i]!;
        const name = `o${i}`;
        names.push([o.kind, name]);
        await engine.create(o.kind, "p", {
          metadata: { name, ...(o.held && { finalizers: ["example.com/hold"] }) },
          ...(o.kind === "pods" && { spec: { containers: [{ name: "c", image: "i" }] } }),
          ...(o.kind === "services" && { spec: { ports: [{ port: 80 }] } }),
        });
      }
      const violations: string[] = [];
      const podsResource = engine.resource("pods");
      const unsubscribe = engine.storage.subscribe({
        onEvent: (ev) => {
          if (ev.type !== "DELETED" || ev.resource === podsResource) return;
          if (ev.object.metadata?.namespace !== "p") return;
          const podsLeft = [...engine.storage.snapshot(podsResource)].filter(([k]) => k.startsWith("p/"));
          if (podsLeft.length > 0) violations.push(`${ev.resource.resource}/${ev.object.metadata?.name}`);
        },
      });
      await engine.delete("namespaces", "", "p");
      const release = async (kind: string, name: string) => {
        const cur = await engine.get(kind, "p", name).catch(() => undefined);
        if (cur === undefined) return;
        await engine
          .update(kind, "p", name, { ...cur, metadata: { ...cur.metadata, finalizers: [] } })
          .catch(() => undefined);
      };
      for (const i of releases) {
        const [kind, name] = names[i % names.length]!;
        await release(kind, name);
        await clock.step(DELAY);
      }
      for (const [kind, name] of names) await release(kind, name);
      await settleControllers(clock, engine);
      unsubscribe();
      expect(violations).toEqual([]);
      expect(statusOf(await engine.get("namespaces", "", "p").catch((e: unknown) => e))?.code).toBe(404);
      engine.stop();
    },
  );
});
