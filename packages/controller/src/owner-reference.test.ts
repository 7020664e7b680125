import type { KubeObject } from "@informer-ts/apimachinery";
import { customResource, resources } from "@informer-ts/client";
import { describe, expect, it } from "vitest";
import {
  AlreadyOwnedError,
  getControllerOf,
  isControlledBy,
  removeOwnerReference,
  setControllerReference,
  setOwnerReference,
} from "./owner-reference.js";

const owner = (name: string, namespace?: string, kind = "Widget", apiVersion = "example.com/v1"): KubeObject => ({
  apiVersion,
  kind,
  metadata: { name, uid: `uid-${name}`, ...(namespace !== undefined && { namespace }) },
});
const child = (namespace?: string): KubeObject => ({
  apiVersion: "v1",
  kind: "ConfigMap",
  metadata: { name: "c", ...(namespace !== undefined && { namespace }) },
});

describe("setControllerReference (controller-runtime's rules)", () => {
  it("adds a controller reference with blockOwnerDeletion", () => {
    const c = child("ns");
    setControllerReference(owner("w", "ns"), c);
    expect(c.metadata?.ownerReferences).toEqual([
      {
        apiVersion: "example.com/v1",
        kind: "Widget",
        name: "w",
        uid: "uid-w",
        controller: true,
        blockOwnerDeletion: true,
      },
    ]);
    expect(isControlledBy(c, owner("w", "ns"))).toBe(true);
  });

  it("is idempotent for the same owner, also across versions, and keeps other owners", () => {
    const c = child("ns");
    setOwnerReference(owner("other", "ns", "Thing"), c);
    setControllerReference(owner("w", "ns"), c);
    setControllerReference(owner("w", "ns", "Widget", "example.com/v2"), c);
    expect(c.metadata?.ownerReferences?.map((r) => [r.kind, r.name, r.apiVersion, r.controller])).toEqual([
      ["Thing", "other", "example.com/v1", undefined],
      ["Widget", "w", "example.com/v2", true],
    ]);
  });

  it("refuses a second controller with AlreadyOwnedError", () => {
    const c = child("ns");
    setControllerReference(owner("w", "ns"), c);
    expect(() => setControllerReference(owner("w2", "ns"), c)).toThrow(AlreadyOwnedError);
    expect(() => setControllerReference(owner("w2", "ns"), c)).toThrow(
      "Object ConfigMap ns/c is already owned by another Widget controller w",
    );
    expect(getControllerOf(c)?.name).toBe("w");
  });

  it("refuses cross-namespace owners and namespaced owners of cluster-scoped objects; accepts cluster-scoped owners", () => {
    expect(() => setControllerReference(owner("w", "a"), child("b"))).toThrow(
      "cross-namespace owner references are disallowed, owner's namespace a, obj's namespace b",
    );
    expect(() => setControllerReference(owner("w", "a"), child())).toThrow(
      "cluster-scoped resource ConfigMap c must not have a namespace-scoped owner, owner's namespace a",
    );
    const c = child("b");
    setControllerReference(owner("node", undefined, "Node", "v1"), c);
    expect(getControllerOf(c)?.kind).toBe("Node");
  });

  it("refuses an owner without apiVersion, kind, name or uid, naming what is missing", () => {
    expect(() => setControllerReference({ metadata: { name: "x", namespace: "ns" } }, child("ns"))).toThrow(
      "owner object ns/x cannot be referenced: it has no apiVersion, kind, metadata.uid",
    );
  });

  it("setOwnerReference keeps an existing controller flag; removeOwnerReference removes by group/kind/name", () => {
    const c = child("ns");
    setControllerReference(owner("w", "ns"), c);
    setOwnerReference(owner("w", "ns"), c);
    expect(getControllerOf(c)?.name).toBe("w");
    expect(removeOwnerReference(owner("w", "ns"), c)).toBe(true);
    expect(removeOwnerReference(owner("w", "ns"), c)).toBe(false);
    expect(c.metadata?.ownerReferences).toEqual([]);
  });

  describe("ownerType: owners without apiVersion/kind (list items, cached objects)", () => {
    const widgets = customResource({ group: "example.com", version: "v1", resource: "widgets", kind: "Widget" });
    const listed = (name: string, namespace?: string): KubeObject => ({
      metadata: { name, uid: `uid-${name}`, ...(namespace !== undefined && { namespace }) },
    });

    it("takes apiVersion and kind from the descriptor", () => {
      const c = child("ns");
      setControllerReference(listed("w", "ns"), c, { ownerType: widgets });
      expect(c.metadata?.ownerReferences).toEqual([
        {
          apiVersion: "example.com/v1",
          kind: "Widget",
          name: "w",
          uid: "uid-w",
          controller: true,
          blockOwnerDeletion: true,
        },
      ]);
      setOwnerReference(listed("n"), c, { ownerType: resources.nodes });
      expect(c.metadata?.ownerReferences?.[1]).toEqual({ apiVersion: "v1", kind: "Node", name: "n", uid: "uid-n" });
      expect(removeOwnerReference(listed("w", "ns"), c, { ownerType: widgets })).toBe(true);
      expect(c.metadata?.ownerReferences?.map((r) => r.kind)).toEqual(["Node"]);
    });

    it("without ownerType, the error names what is missing and what to pass", () => {
      expect(() => setControllerReference(listed("w", "ns"), child("ns"))).toThrow(
        "owner object ns/w cannot be referenced: it has no apiVersion, kind (objects listed from the API server or read from an informer's cache carry none: pass the owner's descriptor as { ownerType })",
      );
      expect(() => removeOwnerReference(listed("w", "ns"), child("ns"))).toThrow(
        "pass the owner's descriptor as { ownerType }",
      );
    });

    it("refuses a descriptor that contradicts the owner's own group or kind; accepts another version", () => {
      expect(() => setControllerReference(owner("w", "ns", "Gadget"), child("ns"), { ownerType: widgets })).toThrow(
        "owner Gadget ns/w is a example.com/v1 Gadget, but ownerType says example.com/v1 Widget",
      );
      expect(() =>
        setControllerReference(owner("w", "ns", "Widget", "other.io/v1"), child("ns"), { ownerType: widgets }),
      ).toThrow("but ownerType says example.com/v1 Widget");
      const c = child("ns");
      setControllerReference(owner("w", "ns", "Widget", "example.com/v2"), c, { ownerType: widgets });
      expect(getControllerOf(c)?.apiVersion).toBe("example.com/v1");
      expect(() =>
        setControllerReference(listed("w", "ns"), child("ns"), { ownerType: {} as unknown as typeof widgets }),
      ).toThrow("ownerType must be a ResourceDescriptor with a kind");
    });

    it("a namespaced descriptor makes a namespace-less owner an error rather than a cluster-scoped owner", () => {
      expect(() => setControllerReference(listed("w"), child("ns"), { ownerType: widgets })).toThrow(
        "cross-namespace owner references are disallowed, owner's namespace , obj's namespace ns",
      );
      const c = child("ns");
      setControllerReference(listed("n"), c, { ownerType: resources.nodes });
      expect(getControllerOf(c)).toMatchObject({ kind: "Node", name: "n" });
    });
  });
});
