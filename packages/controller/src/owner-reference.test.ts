import type { KubeObject } from "@informer-ts/apimachinery";
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
});
