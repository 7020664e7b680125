// Server-side apply and managedFields through the engine (in-process, FakeClock): Update entries recorded for
// create/update with the field manager or the user agent's prefix, apply create/update/conflict/force, no-op applies
// that store nothing, watch events of applies, and bad input that writes nothing.
import { type KubeObject, StatusError } from "@informer-ts/apimachinery";
import { FakeClock, seededRand } from "@informer-ts/clock";
import { describe, expect, it } from "vitest";
import { managerOrUserAgent } from "./registry/store.js";
import { WIDGETS } from "./resources.test-util.js";
import { SimApiServer } from "./sim-apiserver.js";

function engine() {
  const clock = new FakeClock(Date.parse("2026-03-01T10:00:00Z"));
  const e = new SimApiServer({ clock, rand: seededRand(7), progressNotifyIntervalMs: 0, compactionIntervalMs: 0 });
  return { clock, e };
}

const cm = (data: Record<string, string>): KubeObject => ({
  apiVersion: "v1",
  kind: "ConfigMap",
  metadata: { name: "c" },
  data,
});

const APPLY = "application/apply-patch+yaml";

/** Server-side apply through the engine's PATCH (the registry's apply path). */
function apply(
  e: SimApiServer,
  ref: string | typeof WIDGETS,
  ns: string,
  name: string,
  obj: KubeObject,
  ctx: { fieldManager?: string; force?: boolean; dryRun?: boolean },
): Promise<KubeObject> {
  return e.patch(ref, ns, name, APPLY, JSON.stringify(obj), ctx);
}

async function rejected(p: Promise<unknown>): Promise<StatusError> {
  try {
    await p;
  } catch (err) {
    if (err instanceof StatusError) return err;
    throw err;
  }
  throw new Error("expected a rejection");
}

function managers(o: KubeObject): Array<[string, string, string | undefined]> {
  return ((o.metadata?.managedFields ?? []) as Array<{ manager: string; operation: string; time?: string }>).map(
    (e) => [e.manager, e.operation, e.time],
  );
}

describe("engine: managedFields of non-apply writes", () => {
  it("create and update record Update entries under fieldManager, else the user agent's prefix", async () => {
    const { e, clock } = engine();
    const created = await e.create("configmaps", "default", cm({ a: "1" }), { userAgent: "my-ctrl/1.2 (linux)" });
    expect(managers(created)).toEqual([["my-ctrl", "Update", "2026-03-01T10:00:00Z"]]);
    await clock.step(2000);
    const next = { ...structuredClone(created), data: { a: "1", b: "2" } };
    const updated = await e.update("configmaps", "default", "c", next, { fieldManager: "editor" });
    expect(managers(updated)).toEqual([
      ["my-ctrl", "Update", "2026-03-01T10:00:00Z"],
      ["editor", "Update", "2026-03-01T10:00:02Z"],
    ]);
    expect(managerOrUserAgent("", "kubectl/v1.32.4 (linux/amd64) kubernetes/abc")).toBe("kubectl");
    expect(managerOrUserAgent("", `a\u0007b${"x".repeat(200)}`).length).toBe(128);
  });
});

describe("engine: what an update leaves as it was", () => {
  it("an update that changes no ownership keeps the stored managedFields list and shares unchanged parts", async () => {
    const { e, clock } = engine();
    const pod = (image: string): KubeObject => ({
      metadata: { name: "p", labels: { app: "web" } },
      spec: {
        containers: [
          { name: "app", image, ports: [{ containerPort: 80 }] },
          { name: "side", image: "s:1" },
        ],
      },
    });
    const created = await e.create("pods", "default", pod("a:1"), { fieldManager: "ctl" });
    const first = await e.update("pods", "default", "p", pod("a:2"), { fieldManager: "ctl" });
    const second = await e.update("pods", "default", "p", pod("a:3"), { fieldManager: "ctl" });
    // Same manager, same fields, same second: the entry is unchanged, so the list itself is kept.
    expect(second.metadata?.managedFields).toBe(first.metadata?.managedFields);
    expect(second.metadata?.managedFields).toEqual(created.metadata?.managedFields);
    const containers = (o: KubeObject) => (o.spec as { containers: unknown[] }).containers;
    expect(containers(second)[1]).toBe(containers(first)[1]);
    expect((containers(second)[0] as { image: string }).image).toBe("a:3");
    expect(second.metadata?.labels).toBe(first.metadata?.labels);
    // A second later the entry's time moves: a new list with the new time, the same fields.
    await clock.step(1000);
    const third = await e.update("pods", "default", "p", pod("a:4"), { fieldManager: "ctl" });
    expect(third.metadata?.managedFields).not.toBe(second.metadata?.managedFields);
    expect(managers(third)).toEqual([["ctl", "Update", "2026-03-01T10:00:01Z"]]);
    const fields = (o: KubeObject) => ((o.metadata?.managedFields ?? []) as Array<{ fieldsV1: unknown }>)[0]?.fieldsV1;
    expect(fields(third)).toEqual(fields(second));
    // Another manager changing a field takes it over: both entries, the image moved to the new one.
    const fourth = await e.update("pods", "default", "p", pod("a:5"), { fieldManager: "other" });
    expect(managers(fourth).map(([m]) => m)).toEqual(["ctl", "other"]);
    const entries = (fourth.metadata?.managedFields ?? []) as Array<{ fieldsV1: Record<string, unknown> }>;
    expect(entries[1]!.fieldsV1).toEqual({ "f:spec": { "f:containers": { 'k:{"name":"app"}': { "f:image": {} } } } });
    const ctlApp = (entries[0]!.fieldsV1["f:spec"] as Record<string, Record<string, Record<string, unknown>>>)[
      "f:containers"
    ]!['k:{"name":"app"}']!;
    expect(Object.keys(ctlApp)).toContain("f:name");
    expect(Object.keys(ctlApp)).not.toContain("f:image");
  });
});

describe("engine: server-side apply", () => {
  it("creates, applies again without a write, conflicts (nothing written), and takes over with force", async () => {
    const { e, clock } = engine();
    const events: string[] = [];
    const w = await e.watch("configmaps", "default", { resourceVersion: String(e.currentResourceVersion) });
    const first = await apply(e, "configmaps", "default", "c", cm({ a: "1" }), { fieldManager: "one" });
    expect(first.metadata?.uid).toBeDefined();
    expect(managers(first)).toEqual([["one", "Apply", "2026-03-01T10:00:00Z"]]);
    await clock.step(1000);
    const same = await apply(e, "configmaps", "default", "c", cm({ a: "1" }), { fieldManager: "one" });
    expect(same.metadata?.resourceVersion).toBe(first.metadata?.resourceVersion);
    const err = await rejected(apply(e, "configmaps", "default", "c", cm({ a: "2" }), { fieldManager: "two" }));
    expect(err.code).toBe(409);
    expect(err.status.message).toBe('Apply failed with 1 conflict: conflict with "one": .data.a');
    expect((await e.get("configmaps", "default", "c")).metadata?.resourceVersion).toBe(first.metadata?.resourceVersion);
    const forced = await apply(e, "configmaps", "default", "c", cm({ a: "2" }), { fieldManager: "two", force: true });
    expect(forced.data).toEqual({ a: "2" });
    expect(managers(forced)).toEqual([["two", "Apply", "2026-03-01T10:00:01Z"]]);
    for (let i = 0; i < 2; i++) {
      const ev = await w.next();
      if (!ev.done)
        events.push(`${ev.value.type} ${((ev.value.object as KubeObject).data as { a?: string } | undefined)?.a}`);
    }
    w.stop();
    expect(events).toEqual(["ADDED 1", "MODIFIED 2"]);
    expect(e.accounting.count({ verb: "patch" })).toBe(4);
  });

  it("applies to schemaless custom resources and reports dryRun without storing", async () => {
    const { e } = engine();
    e.register(WIDGETS);
    const widget = (spec: unknown): KubeObject => ({
      apiVersion: `${WIDGETS.group}/${WIDGETS.version}`,
      kind: WIDGETS.kind,
      metadata: { name: "w" },
      spec,
    });
    const dry = await apply(e, WIDGETS, "default", "w", widget({ size: 1 }), { fieldManager: "a", dryRun: true });
    expect(dry.spec).toEqual({ size: 1 });
    expect((await e.list(WIDGETS, "default")).items).toEqual([]);
    await apply(e, WIDGETS, "default", "w", widget({ size: 1 }), { fieldManager: "a" });
    const both = await apply(e, WIDGETS, "default", "w", widget({ color: "red" }), { fieldManager: "b" });
    expect(both.spec).toEqual({ size: 1, color: "red" });
  });

  it("bad input: no field manager (422), another name (400), another kind (400), stale resourceVersion (409), uid of a missing object (409); nothing written", async () => {
    const { e } = engine();
    const rv = e.currentResourceVersion;
    const noMgr = await rejected(apply(e, "configmaps", "default", "c", cm({}), { fieldManager: "" }));
    expect([noMgr.code, noMgr.status.message]).toEqual([
      422,
      'PatchOptions.meta.k8s.io "" is invalid: fieldManager: Required value: is required for apply patch',
    ]);
    const otherName = await rejected(apply(e, "configmaps", "default", "x", cm({}), { fieldManager: "m" }));
    expect(otherName.status.message).toBe("the name of the object (c) does not match the name on the URL (x)");
    const kind = await rejected(
      apply(e, "configmaps", "default", "c", { ...cm({}), kind: "Secret" }, { fieldManager: "m" }),
    );
    expect(kind.status.message).toBe("invalid object type: /v1, Kind=Secret");
    const uid = await rejected(
      apply(e, "configmaps", "default", "c", { ...cm({}), metadata: { name: "c", uid: "u-1" } }, { fieldManager: "m" }),
    );
    expect([uid.code, uid.status.message]).toEqual([
      409,
      'Operation cannot be fulfilled on configmaps "c": uid mismatch: the provided object specified uid u-1, and no existing object was found',
    ]);
    expect(e.currentResourceVersion).toBe(rv);
    await apply(e, "configmaps", "default", "c", cm({ a: "1" }), { fieldManager: "m" });
    const stale = await rejected(
      apply(
        e,
        "configmaps",
        "default",
        "c",
        { ...cm({ a: "2" }), metadata: { name: "c", resourceVersion: "1" } },
        { fieldManager: "m" },
      ),
    );
    expect(stale.code).toBe(409);
    expect((await e.get("configmaps", "default", "c")).data).toEqual({ a: "1" });
  });
});
