// Type tests (checked by the type-check of tests): merge patches, JSON patch operations and apply configurations.
import type { KubeObject } from "@informer-ts/apimachinery";
import { builtinResources, type DeepPartial, type Deployment, type ResourceDescriptor } from "@informer-ts/client";
import { describe, expect, expectTypeOf, it } from "vitest";
import { type ApplyConfiguration, applyConfiguration } from "./apply-configuration.js";
import type { DelegatingClient } from "./delegating-client.js";
import { type JsonPatchOp, type MergePatch, mergeFrom } from "./merge-patch.js";

/** A custom resource's type as a user declares it. */
interface Widget extends KubeObject {
  apiVersion: "example.com/v1";
  kind: "Widget";
  spec: { size: number; colour?: string; parts: { name: string }[] };
  status?: { ready: boolean };
}

describe("MergePatch<T>", () => {
  it("is a deep partial where null deletes a field and arrays are replaced whole", () => {
    expectTypeOf<{ spec: { replicas: 3 } }>().toExtend<MergePatch<Deployment>>();
    expectTypeOf<{ metadata: { labels: { old: null } } }>().toExtend<MergePatch<Deployment>>();
    expectTypeOf<{ spec: { parts: { name: string }[] } }>().toExtend<MergePatch<Widget>>();
    // @ts-expect-error a wrong type of a field
    const bad: MergePatch<Deployment> = { spec: { replicas: "three" } };
    // @ts-expect-error an array element cannot be patched field by field
    const partial: MergePatch<Widget> = { spec: { parts: [{}] } };
    void bad;
    void partial;
  });

  it("the spread edit of the issue is a valid merge patch, and mergeFrom's data takes the edited object", () => {
    const d = {} as Deployment;
    const replicas = 3;
    expectTypeOf({ ...d, spec: { ...d.spec, replicas } }).toExtend<MergePatch<Deployment>>();
    expectTypeOf(mergeFrom(d).data).parameter(0).toEqualTypeOf<DeepPartial<Deployment>>();
    expectTypeOf(mergeFrom(d).data(d)).toEqualTypeOf<MergePatch<Deployment>>();
  });
});

describe("the manager client's patch bodies", () => {
  it("are typed by the resource: merge patch, JSON patch or text", () => {
    const client = {} as DelegatingClient;
    const { deployments } = builtinResources;
    const ok = () => client.patch(deployments, "web", { spec: { replicas: 3 } });
    const json = () => client.patch(deployments, "web", [{ op: "replace", path: "/spec/replicas", value: 3 }]);
    // @ts-expect-error replicas is a number
    const bad = () => client.patch(deployments, "web", { spec: { replicas: "3" } });
    expectTypeOf(ok).returns.resolves.toEqualTypeOf<Deployment>();
    void json;
    void bad;
  });
});

describe("the manager client's writes", () => {
  it("take the issue's spread edit of a Deployment read from the client, and merge patches of it", () => {
    const client = {} as DelegatingClient;
    const { deployments } = builtinResources;
    const typeOnly = async (replicas: number) => {
      const d = await client.get(deployments, "web", { namespace: "ns" });
      const edited = { ...d, spec: { ...d.spec, replicas } };
      expectTypeOf(await client.update(deployments, edited)).toEqualTypeOf<Deployment>();
      expectTypeOf(await client.patch(deployments, "web", mergeFrom(d).data(edited))).toEqualTypeOf<Deployment>();
      await client.updateStatus(deployments, { ...d, status: { ...d.status, readyReplicas: replicas } });
      // @ts-expect-error replicas is a number
      await client.update(deployments, { ...d, spec: { ...d.spec, replicas: "3" } });
    };
    expect(typeof typeOnly).toBe("function");
  });
});

describe("applyConfiguration(resource, name, namespace, fields)", () => {
  it("builds the typed configuration naming the object, with the descriptor's apiVersion and kind", () => {
    const { deployments, namespaces } = builtinResources;
    const web = applyConfiguration(deployments, "web", "ns", {
      metadata: { labels: { app: "web" } },
      spec: { replicas: 3 },
    });
    expectTypeOf(web).toEqualTypeOf<ApplyConfiguration<Deployment>>();
    expect(web).toEqual({
      apiVersion: "apps/v1",
      kind: "Deployment",
      metadata: { name: "web", namespace: "ns", labels: { app: "web" } },
      spec: { replicas: 3 },
    });
    expect(applyConfiguration(namespaces, "team-a")).toEqual({
      apiVersion: "v1",
      kind: "Namespace",
      metadata: { name: "team-a" },
    });
    // @ts-expect-error replicas is a number
    const bad = () => applyConfiguration(deployments, "web", "ns", { spec: { replicas: "3" } });
    void bad;
  });

  it("names the bad input: no name, a namespaced kind without a namespace, a cluster-scoped kind with one", () => {
    const { deployments, namespaces } = builtinResources;
    expect(() => applyConfiguration(deployments, "", "ns")).toThrow(/a Deployment needs a metadata.name, got ""/);
    expect(() => applyConfiguration(deployments, "web")).toThrow(/Deployment web is namespaced and needs a namespace/);
    expect(() => applyConfiguration(namespaces, "a", "ns")).toThrow(/Namespace is cluster-scoped; a cannot have/);
  });

  it("types a user's CRD configuration from its declared type", () => {
    const widgets = {
      group: "example.com",
      version: "v1",
      resource: "widgets",
      kind: "Widget",
      namespaced: true,
    } as ResourceDescriptor<Widget>;
    const w = applyConfiguration(widgets, "w", "ns", { spec: { size: 2 } });
    expectTypeOf(w).toEqualTypeOf<ApplyConfiguration<Widget>>();
    expect(w.apiVersion).toBe("example.com/v1");
    // @ts-expect-error size is a number
    const bad = () => applyConfiguration(widgets, "w", "ns", { spec: { size: "2" } });
    void bad;
  });
});

describe("JsonPatchOp", () => {
  it("types each operation's fields", () => {
    expectTypeOf<{ op: "replace"; path: "/spec/replicas"; value: 3 }>().toExtend<JsonPatchOp>();
    expectTypeOf<{ op: "remove"; path: "/metadata/labels/app" }>().toExtend<JsonPatchOp>();
    expectTypeOf<{ op: "move"; from: "/a"; path: "/b" }>().toExtend<JsonPatchOp>();
    // @ts-expect-error a path is a JSON pointer
    const noSlash: JsonPatchOp = { op: "remove", path: "spec" };
    // @ts-expect-error add needs a value
    const noValue: JsonPatchOp = { op: "add", path: "/a" };
    void noSlash;
    void noValue;
  });
});

describe("ApplyConfiguration<T>", () => {
  it("requires apiVersion, kind and metadata.name, everything else optional at every depth", () => {
    expectTypeOf<{
      apiVersion: "apps/v1";
      kind: "Deployment";
      metadata: { name: "web" };
      spec: { replicas: 2 };
    }>().toExtend<ApplyConfiguration<Deployment>>();
    expectTypeOf<{ metadata: { name: "web" }; spec: { replicas: 1 } }>().not.toExtend<ApplyConfiguration<Deployment>>();
    expectTypeOf<{ apiVersion: "apps/v1"; kind: "Deployment"; metadata: { namespace: "x" } }>().not.toExtend<
      ApplyConfiguration<Deployment>
    >();
  });

  it("works for a user's CRD type, keeping its literal apiVersion and kind", () => {
    expectTypeOf<{
      apiVersion: "example.com/v1";
      kind: "Widget";
      metadata: { name: "w" };
      spec: { parts: [{ name: "p" }] };
    }>().toExtend<ApplyConfiguration<Widget>>();
    expectTypeOf<{ apiVersion: "v1"; kind: "Widget"; metadata: { name: "w" } }>().not.toExtend<
      ApplyConfiguration<Widget>
    >();
    expectTypeOf<{
      apiVersion: "example.com/v1";
      kind: "Widget";
      metadata: { name: "w" };
      status: { ready: true };
    }>().toExtend<ApplyConfiguration<Widget>>();
  });
});
