// controller-runtime pkg/controller/controllerutil/controllerutil_test.go "CreateOrUpdate" and "CreateOrPatch",
// ported as tables on the in-memory client (the simulator runs them in test/controller/helpers-sim.test.ts).
import { type KubeObject, newForbidden } from "@informer-ts/apimachinery";
import type { ResourceDescriptor } from "@informer-ts/client";
import { describe, expect, it } from "vitest";
import { createOrPatch, createOrUpdate, MutateKeyChangedError } from "./create-or-update.js";
import { FakeObjectClient } from "./fake-object-client.test-util.js";

const deployments: ResourceDescriptor = {
  group: "apps",
  version: "v1",
  resource: "deployments",
  kind: "Deployment",
  namespaced: true,
};

const key = () => ({ metadata: { name: "test-deploy", namespace: "default" } }) as KubeObject;
const specr = (replicas: number) => (o: KubeObject) => {
  o.spec = { ...(o.spec as object), replicas };
};

describe.each([
  ["CreateOrUpdate", createOrUpdate],
  ["CreateOrPatch", createOrPatch],
] as const)("%s", (name, op) => {
  it("creates a new object if one doesn't exists", async () => {
    const c = new FakeObjectClient();
    const out = await op(c, deployments, key(), specr(2));
    expect(out.result).toBe("created");
    expect(out.object).toMatchObject({
      metadata: { name: "test-deploy", namespace: "default" },
      spec: { replicas: 2 },
    });
    expect(c.requests.map((r) => r.verb)).toEqual(["get", "create"]);
  });

  it("updates existing object", async () => {
    const c = new FakeObjectClient();
    await op(c, deployments, key(), specr(2));
    const out = await op(c, deployments, key(), specr(3));
    expect(out.result).toBe("updated");
    expect(out.object.spec).toEqual({ replicas: 3 });
    expect(c.requests.map((r) => r.verb).slice(2)).toEqual(["get", name === "CreateOrUpdate" ? "update" : "patch"]);
  });

  it("updates only changed objects", async () => {
    const c = new FakeObjectClient();
    await op(c, deployments, key(), specr(2));
    const out = await op(c, deployments, key(), specr(2));
    expect(out.result).toBe("unchanged");
    expect(c.requests.map((r) => r.verb)).toEqual(["get", "create", "get"]);
  });

  it.each([
    [
      "errors when MutateFn changes object name on creation",
      false,
      (o: KubeObject) => ({ ...o, metadata: { ...o.metadata, name: "other" } }),
    ],
    [
      "errors when MutateFn renames an object",
      true,
      (o: KubeObject) => ({ ...o, metadata: { ...o.metadata, name: "other" } }),
    ],
    [
      "errors when object namespace changes",
      true,
      (o: KubeObject) => {
        o.metadata!.namespace = "other";
      },
    ],
  ])("%s", async (_n, existing, mutate) => {
    const c = new FakeObjectClient();
    if (existing) await op(c, deployments, key(), specr(1));
    await expect(op(c, deployments, key(), mutate)).rejects.toBeInstanceOf(MutateKeyChangedError);
    expect(c.requests.map((r) => r.verb).filter((v) => v !== "get")).toEqual(existing ? ["create"] : []);
  });

  it("aborts immediately if there was an error initially retrieving the object", async () => {
    const c = new FakeObjectClient();
    c.fault = () => {
      throw newForbidden({ group: "apps", resource: "deployments" }, "test-deploy", "no");
    };
    let mutated = false;
    await expect(
      op(c, deployments, key(), () => {
        mutated = true;
      }),
    ).rejects.toMatchObject({ code: 403 });
    expect(mutated).toBe(false);
  });

  it("needs a name to read the object by", async () => {
    await expect(op(new FakeObjectClient(), deployments, { metadata: {} }, () => {})).rejects.toThrow(
      /must have a metadata.name/,
    );
  });
});

describe("CreateOrPatch status", () => {
  it("patches status when changed (updatedStatusOnly) and both (updatedStatus)", async () => {
    const c = new FakeObjectClient();
    await createOrPatch(c, deployments, key(), specr(1));
    const only = await createOrPatch(c, deployments, key(), (o) => {
      o.status = { replicas: 1 };
    });
    expect(only.result).toBe("updatedStatusOnly");
    const both = await createOrPatch(c, deployments, key(), (o) => {
      o.spec = { replicas: 4 };
      o.status = { replicas: 2 };
    });
    expect(both.result).toBe("updatedStatus");
    const patches = c.requests.filter((r) => r.verb === "patch").map((r) => r.body);
    expect(patches).toEqual([{ status: { replicas: 1 } }, { spec: { replicas: 4 } }, { status: { replicas: 2 } }]);
  });
});
