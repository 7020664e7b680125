// The controllerutil / util/retry helpers and the manager client's apply against the simulated apiserver, through a
// real KubeClient under virtual time: createOrUpdate's three outcomes, createOrPatch's status variants,
// retryOnConflict under generated 409s from a concurrent writer (fast-check), mergeFrom's patch applied by the server,
// server-side apply with field ownership and force.
import { isConflict, type KubeObject } from "@informer-ts/apimachinery";
import { builtinResources, type ConfigMap, listWatchFor } from "@informer-ts/client";
import {
  createOrPatch,
  createOrUpdate,
  DefaultRetry,
  Manager,
  mergeFrom,
  retryOnConflict,
} from "@informer-ts/controller";
import { silentLogger } from "@informer-ts/instrumentation";
import { createSimCluster, type SimCluster } from "@informer-ts/testing";
import fc from "fast-check";
import { describe, expect, it } from "vitest";

const { configmaps, deployments } = builtinResources;
const ns = "default";

/** Waits for `p` while letting the cluster's virtual time run (retry pauses sleep on it). */
async function drive<T>(c: SimCluster, p: Promise<T>): Promise<T> {
  let done = false;
  const out = p.finally(() => {
    done = true;
  });
  out.catch(() => {});
  await c.settle({ until: () => done, maxMs: 60_000 });
  return out;
}

const strip = (o: KubeObject) => {
  const {
    resourceVersion: _rv,
    managedFields: _mf,
    uid: _u,
    creationTimestamp: _c,
    generation: _g,
    ...meta
  } = o.metadata ?? {};
  return { ...o, metadata: meta };
};

describe("createOrUpdate / createOrPatch against the simulator", () => {
  it("createOrUpdate: created, then unchanged (no request), then updated", async () => {
    const c = await createSimCluster({ seed: 1 });
    try {
      const want = { metadata: { name: "cfg", namespace: ns } } as ConfigMap;
      const setData = (v: string) => (o: ConfigMap) => {
        o.data = { ...o.data, key: v };
      };
      const first = await createOrUpdate(c.client, configmaps, want, setData("1"));
      expect(first.result).toBe("created");
      const writes = () => c.requests.filter((r) => r.verb !== "get").length;
      const before = writes();
      const second = await createOrUpdate(c.client, configmaps, want, setData("1"));
      expect(second.result).toBe("unchanged");
      expect(writes()).toBe(before);
      const third = await createOrUpdate(c.client, configmaps, want, setData("2"));
      expect(third.result).toBe("updated");
      expect((await c.client.get(configmaps, "cfg", { namespace: ns })).data).toEqual({ key: "2" });
    } finally {
      await c.close();
    }
  });

  it("createOrPatch: a spec change is a patch (updated), a status change a /status patch (updatedStatusOnly)", async () => {
    const c = await createSimCluster({ seed: 1 });
    try {
      const key = { metadata: { name: "web", namespace: ns } } as KubeObject;
      const spec = (replicas: number) => (d: KubeObject) => {
        d.spec = {
          replicas,
          selector: { matchLabels: { app: "web" } },
          template: { metadata: { labels: { app: "web" } }, spec: { containers: [{ name: "c", image: "nginx" }] } },
        };
      };
      expect((await createOrPatch(c.client, deployments as never, key, spec(1))).result).toBe("created");
      expect((await createOrPatch(c.client, deployments as never, key, spec(2))).result).toBe("updated");
      const st = await createOrPatch(c.client, deployments as never, key, (d) => {
        d.status = { ...(d.status as object), observedGeneration: 2 };
      });
      expect(st.result).toBe("updatedStatusOnly");
      const live = await c.client.get(deployments, "web", { namespace: ns });
      expect(live.spec?.replicas).toBe(2);
      expect(live.status?.observedGeneration).toBe(2);
      const patches = c.requests
        .filter((r) => r.verb === "patch")
        .map((r) => r.requestURI?.endsWith("/status") ?? false);
      expect(patches).toEqual([false, true]);
    } finally {
      await c.close();
    }
  });
});

describe("retryOnConflict against the simulator", () => {
  it("property: n concurrent writes between read and update → n 409s; succeeds iff n < DefaultRetry.steps, keeping every write", async () => {
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: 0, max: 7 }), async (n) => {
        const c = await createSimCluster({ seed: 1 });
        try {
          await c.client.create(configmaps, { metadata: { name: "x", namespace: ns }, data: {} }, { namespace: ns });
          let tries = 0;
          let conflicts = 0;
          const outcome = await drive(
            c,
            retryOnConflict(
              DefaultRetry,
              async () => {
                const cm = await c.client.get(configmaps, "x", { namespace: ns });
                if (tries++ < n) {
                  // another writer gets in between: our update below carries a stale resourceVersion
                  await c.client.update(
                    configmaps,
                    { ...cm, data: { ...cm.data, [`other${tries}`]: "y" } },
                    { namespace: ns },
                  );
                }
                try {
                  return await c.client.update(
                    configmaps,
                    { ...cm, data: { ...cm.data, mine: "1" } },
                    { namespace: ns },
                  );
                } catch (err) {
                  if (isConflict(err)) conflicts++;
                  throw err;
                }
              },
              { clock: c.clock },
            ),
          ).then(
            (v) => ({ ok: true as const, v }),
            (e: unknown) => ({ ok: false as const, e }),
          );
          expect(conflicts).toBe(Math.min(n, DefaultRetry.steps));
          expect(tries).toBe(Math.min(n + 1, DefaultRetry.steps));
          const live = await c.client.get(configmaps, "x", { namespace: ns });
          const others = Object.keys(live.data ?? {}).filter((k) => k.startsWith("other"));
          expect(others).toHaveLength(Math.min(n, DefaultRetry.steps));
          if (n < DefaultRetry.steps) {
            expect(outcome.ok).toBe(true);
            expect(live.data?.mine).toBe("1");
          } else {
            expect(outcome.ok).toBe(false);
            expect(isConflict(outcome.ok ? undefined : outcome.e)).toBe(true);
            expect(live.data?.mine).toBeUndefined();
          }
        } finally {
          await c.close();
        }
      }),
      { numRuns: 12 },
    );
  });
});

describe("mergeFrom and apply against the simulator", () => {
  it("the server applies mergeFrom's patch to exactly the edited object; the optimistic lock refuses a stale one", async () => {
    const c = await createSimCluster({ seed: 1 });
    try {
      const cm = await c.client.create(
        configmaps,
        { metadata: { name: "m", namespace: ns, labels: { a: "1", b: "2" } }, data: { k: "v", gone: "x" } },
        { namespace: ns },
      );
      const patch = mergeFrom(cm);
      const { gone: _g, ...data } = cm.data ?? {};
      const { b: _b, ...labels } = cm.metadata?.labels ?? {};
      const edited = { ...cm, metadata: { ...cm.metadata, labels: { ...labels, c: "3" } }, data: { ...data, k: "w" } };
      const out = await c.client.patch(configmaps, "m", patch.data(edited), {
        namespace: ns,
        patchType: patch.patchType,
      });
      expect(strip(out)).toEqual(strip(edited));
      const locked = mergeFrom(cm, { optimisticLock: true }); // cm is stale now
      await expect(
        c.client.patch(configmaps, "m", locked.data({ ...cm, data: { k: "z" } }), { namespace: ns }),
      ).rejects.toMatchObject({ code: 409 });
    } finally {
      await c.close();
    }
  });

  it("the manager client's apply: owned fields, a conflict with another manager, force", async () => {
    const c = await createSimCluster({ seed: 1 });
    const mgr = new Manager({
      listerWatcherFor: (r, { namespace }) => listWatchFor(c.client, r, { namespace }),
      client: c.client,
      clock: c.clock,
      quiet: true,
      metrics: undefined,
      logger: silentLogger,
    });
    try {
      const api = mgr.getClient();
      const applied = await api.apply(
        configmaps,
        { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "ssa", namespace: ns }, data: { owner: "a" } },
        { fieldManager: "manager-a" },
      );
      expect(applied.data).toEqual({ owner: "a" });
      const cfg = {
        apiVersion: "v1",
        kind: "ConfigMap",
        metadata: { name: "ssa", namespace: ns },
        data: { owner: "b" },
      } as const;
      await expect(api.apply(configmaps, cfg, { fieldManager: "manager-b" })).rejects.toMatchObject({ code: 409 });
      const forced = await api.apply(configmaps, cfg, { fieldManager: "manager-b", force: true });
      expect(forced.data).toEqual({ owner: "b" });
      await expect(api.apply(configmaps, { ...cfg, kind: "Secret" } as never, { fieldManager: "x" })).rejects.toThrow(
        /the configuration is v1 Secret, the resource v1 ConfigMap/,
      );
    } finally {
      await c.close();
    }
  });
});
