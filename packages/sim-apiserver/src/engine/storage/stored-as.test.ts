// One Event storage for core v1 and events.k8s.io/v1 (pkg/registry/events/rest serves the core event store; etcd
// keeps one prefix at the storage version): an Event written through either group is read, listed, watched and
// field-selected through both, with one uid and one resourceVersion.
import type { KubeObject, WatchEvent } from "@informer-ts/apimachinery";
import { FakeClock, seededRand, settle } from "@informer-ts/clock";
import { describe, expect, it } from "vitest";
import { SimApiServer } from "../sim-apiserver.js";

const EVENTS = "events.events.k8s.io";

function setup() {
  const clock = new FakeClock();
  const engine = new SimApiServer({ clock, rand: seededRand(7), compactionIntervalMs: 0 });
  return { clock, engine };
}

const newStyle = (name: string): KubeObject =>
  ({
    apiVersion: "events.k8s.io/v1",
    kind: "Event",
    metadata: { name },
    eventTime: "2026-01-01T00:00:00.000000Z",
    reportingController: "test-controller",
    reportingInstance: "test-node",
    action: "Do",
    reason: "Test",
    type: "Normal",
    note: `This is ${name}`,
    regarding: { kind: "Pod", name: "p", namespace: "default" },
  }) as KubeObject;

const oldStyle = (name: string): KubeObject =>
  ({
    apiVersion: "v1",
    kind: "Event",
    metadata: { name },
    involvedObject: { kind: "Pod", name: "p", namespace: "default" },
    reason: "Test",
    message: `This is ${name}`,
    type: "Normal",
    count: 1,
    source: { component: "kubelet" },
  }) as KubeObject;

function names(items: readonly KubeObject[]): string[] {
  return items.map((o) => o.metadata?.name ?? "");
}

async function collect(w: AsyncIterable<WatchEvent>, into: string[]): Promise<void> {
  for await (const e of w) {
    const o = e.object as KubeObject & { note?: string; message?: string };
    into.push(`${e.type} ${o.apiVersion} ${o.metadata?.name}@${o.metadata?.resourceVersion} ${o.note ?? o.message}`);
  }
}

describe("one Event storage for v1 and events.k8s.io/v1", () => {
  it("an Event created through events.k8s.io is the same object through core v1, converted", async () => {
    const { engine } = setup();
    const created = await engine.create(EVENTS, "default", newStyle("a"));
    const core = (await engine.get("events", "default", "a")) as KubeObject & Record<string, unknown>;
    expect(core.apiVersion).toBe("v1");
    expect(core.metadata?.uid).toBe(created.metadata?.uid);
    expect(core.metadata?.resourceVersion).toBe(created.metadata?.resourceVersion);
    expect(core).toMatchObject({
      message: "This is a",
      reportingComponent: "test-controller",
      involvedObject: { kind: "Pod", name: "p" },
    });
    expect(core.note).toBeUndefined();
    expect(names((await engine.list("events", "")).items)).toEqual(["a"]);
    engine.stop();
  });

  it("an Event created through core v1 is served by events.k8s.io with upstream's field names", async () => {
    const { engine } = setup();
    await engine.create("events", "default", oldStyle("b"));
    const ev = (await engine.get(EVENTS, "default", "b")) as KubeObject & Record<string, unknown>;
    expect(ev).toMatchObject({
      apiVersion: "events.k8s.io/v1",
      note: "This is b",
      regarding: { kind: "Pod", name: "p" },
      deprecatedSource: { component: "kubelet" },
      deprecatedCount: 1,
    });
    expect(ev.message).toBeUndefined();
    engine.stop();
  });

  it("updates, patches and deletes through one group are seen through the other, one resourceVersion each", async () => {
    const { engine } = setup();
    await engine.create("events", "default", oldStyle("c"));
    const labels = '{"metadata":{"labels":{"seen":"both"}}}';
    const patched = await engine.patch(EVENTS, "default", "c", "application/merge-patch+json", labels);
    const core = await engine.get("events", "default", "c");
    expect(core.metadata?.labels).toEqual({ seen: "both" });
    expect(core.metadata?.resourceVersion).toBe(patched.metadata?.resourceVersion);
    await engine.patch("events", "default", "c", "application/merge-patch+json", '{"message":"through core"}');
    expect(((await engine.get(EVENTS, "default", "c")) as { note?: string }).note).toBe("through core");
    await engine.delete(EVENTS, "default", "c");
    await expect(engine.get("events", "default", "c")).rejects.toMatchObject({ status: { code: 404 } });
    engine.stop();
  });

  it("ValidateEventUpdate: through events.k8s.io a new-style Event keeps its note; through core v1 it may change", async () => {
    const { engine } = setup();
    await engine.create(EVENTS, "default", newStyle("d"));
    await expect(
      engine.patch(EVENTS, "default", "d", "application/merge-patch+json", '{"note":"changed"}'),
    ).rejects.toMatchObject({
      status: { code: 422, details: { causes: [{ field: "message", message: expect.stringContaining("immutable") }] } },
    });
    const series = '{"series":{"count":2,"lastObservedTime":"2026-01-01T00:00:05.000000Z"}}';
    const withSeries = await engine.patch(EVENTS, "default", "d", "application/merge-patch+json", series);
    expect((withSeries as { series?: { count: number } }).series?.count).toBe(2);
    await expect(
      engine.patch(EVENTS, "default", "d", "application/merge-patch+json", '{"series":{"count":1}}'),
    ).rejects.toMatchObject({ status: { code: 422 } });
    await engine.patch("events", "default", "d", "application/merge-patch+json", '{"message":"changed"}');
    expect(((await engine.get(EVENTS, "default", "d")) as { note?: string }).note).toBe("changed");
    engine.stop();
  });

  it("a watch of either group sees the writes of both, converted to its version", async () => {
    const { engine } = setup();
    const start = String(engine.currentResourceVersion);
    const core: string[] = [];
    const events: string[] = [];
    const w1 = await engine.watch("events", "default", { resourceVersion: start, timeoutSeconds: 60 });
    const w2 = await engine.watch(EVENTS, "default", { resourceVersion: start, timeoutSeconds: 60 });
    const done = Promise.all([collect(w1, core), collect(w2, events)]);
    await engine.create(EVENTS, "default", newStyle("n"));
    await engine.create("events", "default", oldStyle("o"));
    await settle();
    engine.stop();
    await done;
    const rv = Number(start);
    expect(core).toEqual([`ADDED v1 n@${rv + 1} This is n`, `ADDED v1 o@${rv + 2} This is o`]);
    expect(events).toEqual([
      `ADDED events.k8s.io/v1 n@${rv + 1} This is n`,
      `ADDED events.k8s.io/v1 o@${rv + 2} This is o`,
    ]);
  });

  it("field selectors of each group match Events written through either (source falls back to the reporter)", async () => {
    const { engine } = setup();
    await engine.create(EVENTS, "default", newStyle("new"));
    await engine.create("events", "default", oldStyle("old"));
    const sel = async (r: string, fieldSelector: string) =>
      names((await engine.list(r, "default", { fieldSelector })).items);
    expect(await sel("events", "source=test-controller")).toEqual(["new"]);
    expect(await sel("events", "source=kubelet")).toEqual(["old"]);
    expect(await sel("events", "reportingComponent=test-controller")).toEqual(["new"]);
    expect(await sel("events", "involvedObject.name=p")).toEqual(["new", "old"]);
    expect(await sel(EVENTS, "reportingController=test-controller")).toEqual(["new"]);
    expect(await sel(EVENTS, "source=kubelet")).toEqual(["old"]);
    expect(await sel(EVENTS, "source=test-controller")).toEqual(["new"]);
    expect(await sel(EVENTS, "regarding.name=p")).toEqual(["new", "old"]);
    await expect(sel(EVENTS, "involvedObject.name=p")).rejects.toMatchObject({ status: { code: 400 } });
    engine.stop();
  });

  it("a name is one key for both groups: creating it through the other group is 409 AlreadyExists", async () => {
    const { engine } = setup();
    await engine.create("events", "default", oldStyle("same"));
    await expect(engine.create(EVENTS, "default", newStyle("same"))).rejects.toMatchObject({
      status: { code: 409, reason: "AlreadyExists" },
    });
    engine.stop();
  });
});
