// The /scale subresource (autoscaling/v1 Scale) in-process under FakeClock: Deployments and a custom resource whose
// CRD declares the scale paths; GET, PUT, merge PATCH, validation and stale resourceVersion; nothing written on errors.
import { type KubeObject, StatusError } from "@informer-ts/apimachinery";
import { FakeClock, seededRand } from "@informer-ts/clock";
import { describe, expect, it } from "vitest";
import { SimApiServer } from "../sim-apiserver.js";
import { CORE_SCALE, formatLabelSelector, scaleOf } from "./scale.js";

function engine() {
  return new SimApiServer({
    clock: new FakeClock(Date.parse("2026-07-01T00:00:00Z")),
    rand: seededRand(4),
    progressNotifyIntervalMs: 0,
    compactionIntervalMs: 0,
  });
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

const SCALE = { subresource: "scale" } as const;

describe("/scale", () => {
  it("Deployments: GET shows replicas and the serialized selector; PUT and merge PATCH set spec.replicas", async () => {
    const e = engine();
    await e.create("deployments.apps", "default", {
      metadata: { name: "web" },
      spec: {
        replicas: 2,
        selector: { matchLabels: { tier: "front", app: "web" } },
        template: {
          metadata: { labels: { app: "web", tier: "front" } },
          spec: { containers: [{ name: "web", image: "nginx" }] },
        },
      },
    });
    const scale = await e.get("deployments.apps", "default", "web", {}, { ...SCALE });
    expect(scale).toMatchObject({
      kind: "Scale",
      apiVersion: "autoscaling/v1",
      metadata: { name: "web", namespace: "default" },
      spec: { replicas: 2 },
      status: { replicas: 0, selector: "app=web,tier=front" },
    });
    const put = await e.update("deployments.apps", "default", "web", { ...scale, spec: { replicas: 5 } }, { ...SCALE });
    expect(put.spec).toEqual({ replicas: 5 });
    const patched = await e.patch(
      "deployments.apps",
      "default",
      "web",
      "application/merge-patch+json",
      '{"spec":{"replicas":1}}',
      { ...SCALE },
    );
    expect(patched.spec).toEqual({ replicas: 1 });
    const dep = await e.get("deployments.apps", "default", "web");
    expect((dep.spec as { replicas: number }).replicas).toBe(1);
    expect(dep.metadata?.generation).toBe(3);
  });

  it("a custom resource scales through the paths its definition declares", async () => {
    const e = engine();
    await e.create("customresourcedefinitions.apiextensions.k8s.io", "", {
      metadata: { name: "pools.example.dev" },
      spec: {
        group: "example.dev",
        scope: "Namespaced",
        names: { plural: "pools", kind: "Pool" },
        versions: [
          {
            name: "v1",
            served: true,
            storage: true,
            subresources: {
              status: {},
              scale: {
                specReplicasPath: ".spec.size",
                statusReplicasPath: ".status.ready",
                labelSelectorPath: ".status.selector",
              },
            },
          },
        ],
      },
    });
    await e.create("pools.example.dev", "default", { metadata: { name: "p" }, spec: { size: 3 } });
    const s = await e.get("pools.example.dev", "default", "p", {}, { ...SCALE });
    expect([s.spec, s.status]).toEqual([{ replicas: 3 }, { replicas: 0 }]);
    await e.patch("pools.example.dev", "default", "p", "application/merge-patch+json", '{"spec":{"replicas":7}}', {
      ...SCALE,
    });
    expect((await e.get("pools.example.dev", "default", "p")).spec).toEqual({ size: 7 });
  });

  it("bad input: negative replicas (422), a stale resourceVersion (409), apply (415), no /scale (404); nothing written", async () => {
    const e = engine();
    const dep = await e.create("deployments.apps", "default", {
      metadata: { name: "d" },
      spec: {
        replicas: 1,
        selector: { matchLabels: { app: "d" } },
        template: { metadata: { labels: { app: "d" } }, spec: { containers: [{ name: "d", image: "nginx" }] } },
      },
    });
    const rv = e.currentResourceVersion;
    const neg = await rejected(
      e.update("deployments.apps", "default", "d", { kind: "Scale", spec: { replicas: -1 } }, { ...SCALE }),
    );
    expect([neg.code, neg.status.message]).toEqual([
      422,
      'Scale.autoscaling "d" is invalid: spec.replicas: Invalid value: -1: must be greater than or equal to 0',
    ]);
    const stale = await rejected(
      e.update(
        "deployments.apps",
        "default",
        "d",
        { kind: "Scale", metadata: { name: "d", resourceVersion: "1" }, spec: { replicas: 4 } },
        { ...SCALE },
      ),
    );
    expect(stale.code).toBe(409);
    const apply = await rejected(
      e.patch("deployments.apps", "default", "d", "application/apply-patch+yaml", "{}", {
        ...SCALE,
        fieldManager: "m",
      }),
    );
    expect(apply.code).toBe(415);
    const none = await rejected(e.get("configmaps", "default", "x", {}, { ...SCALE }));
    expect(none.code).toBe(404);
    expect(e.currentResourceVersion).toBe(rv);
    expect((await e.get("deployments.apps", "default", "d")).metadata?.resourceVersion).toBe(
      dep.metadata?.resourceVersion,
    );
  });

  it("formats label selectors as metav1.FormatLabelSelector does", () => {
    expect(
      formatLabelSelector({
        matchLabels: { b: "2" },
        matchExpressions: [
          { key: "a", operator: "In", values: ["y", "x"] },
          { key: "c", operator: "DoesNotExist" },
          { key: "d", operator: "Exists" },
          { key: "e", operator: "NotIn", values: ["z"] },
        ],
      }),
    ).toBe("a in (x,y),b=2,!c,d,e notin (z)");
    const obj: KubeObject = { metadata: { name: "x" }, spec: {} };
    expect(scaleOf(obj, { specReplicasPath: ".spec.replicas", statusReplicasPath: ".status.replicas" })).toEqual({
      kind: "Scale",
      apiVersion: "autoscaling/v1",
      metadata: { name: "x", uid: undefined, resourceVersion: undefined, creationTimestamp: undefined },
      spec: {},
      status: { replicas: 0 },
    });
  });
});

describe("the /scale of ReplicationControllers (CORE_SCALE: scaleFromRC)", () => {
  it("shows the label-map selector as labels.SelectorFromSet's string, keys sorted", () => {
    const rc = {
      metadata: {
        name: "rc",
        namespace: "default",
        uid: "u",
        resourceVersion: "5",
        creationTimestamp: "2026-01-01T00:00:00Z",
      },
      spec: { replicas: 3, selector: { tier: "fe", app: "web" } },
      status: { replicas: 2 },
    };
    expect(scaleOf(rc, CORE_SCALE)).toMatchObject({
      kind: "Scale",
      spec: { replicas: 3 },
      status: { replicas: 2, selector: "app=web,tier=fe" },
    });
  });
});

describe("ReplicationControllers and ReplicaSets serve /scale", () => {
  it("GET /scale of a ReplicationController reads spec.replicas and the map selector; a spec change bumps generation", async () => {
    const engine = new SimApiServer({ clock: new FakeClock(), rand: seededRand(2), compactionIntervalMs: 0 });
    await engine.create("replicationcontrollers", "default", {
      metadata: { name: "rc" },
      spec: { replicas: 2, selector: { app: "web" }, template: { metadata: { labels: { app: "web" } } } },
    });
    const scale = await engine.requests.get("replicationcontrollers", "default", "rc", {}, { subresource: "scale" });
    expect(scale.object).toMatchObject({ spec: { replicas: 2 }, status: { selector: "app=web" } });
    const rc = await engine.get("replicationcontrollers", "default", "rc");
    const updated = await engine.update("replicationcontrollers", "default", "rc", {
      ...rc,
      spec: { ...(rc.spec as object), replicas: 3 },
    });
    expect(updated.metadata?.generation).toBe(2);
    engine.stop();
  });
});
