import { describe, expect, it } from "vitest";
import { metaOf, nameOf, namespaceOf, resourceVersionOf, shallowCopyObject } from "./meta.js";
import type { KubeObject } from "./types.js";

describe("meta accessors", () => {
  it("read name, namespace and resourceVersion", () => {
    const cm = { metadata: { name: "a", namespace: "ns", resourceVersion: "42" } };
    expect(metaOf(cm)).toBe(cm.metadata);
    expect(nameOf(cm)).toBe("a");
    expect(namespaceOf(cm)).toBe("ns");
    expect(resourceVersionOf(cm)).toBe("42");
  });

  it("never throw on values without metadata and read missing fields as empty", () => {
    for (const v of [undefined, null, 3, "x", [], {}, { metadata: null }, { metadata: [] }, { metadata: "m" }]) {
      expect(metaOf(v)).toBeUndefined();
      expect(nameOf(v)).toBe("");
      expect(namespaceOf(v)).toBe("");
      expect(resourceVersionOf(v)).toBe("");
    }
    expect(namespaceOf({ metadata: { name: "node-1" } })).toBe("");
    expect(nameOf({ metadata: { name: 5 } })).toBe("");
  });
});

describe("shallowCopyObject", () => {
  it("copies the top level and metadata only", () => {
    const obj: KubeObject = {
      kind: "ConfigMap",
      metadata: { name: "a", labels: { x: "1" }, resourceVersion: "1" },
      data: { k: "v" },
    };
    const copy = shallowCopyObject(obj);
    expect(copy).toEqual(obj);
    expect(copy).not.toBe(obj);
    expect(copy.metadata).not.toBe(obj.metadata);
    expect(copy.metadata?.labels).toBe(obj.metadata?.labels);
    expect(copy.data).toBe(obj.data);
    copy.metadata!.resourceVersion = "2";
    copy.kind = "Other";
    expect(obj.metadata?.resourceVersion).toBe("1");
    expect(obj.kind).toBe("ConfigMap");
  });

  it("copies objects without metadata", () => {
    const obj: KubeObject = { kind: "X" };
    const copy = shallowCopyObject(obj);
    expect(copy).toEqual({ kind: "X" });
    expect(copy).not.toBe(obj);
    expect("metadata" in copy).toBe(false);
  });

  it("detaches items from a list page so the page can be collected", () => {
    const page = { items: [{ metadata: { name: "a" } }, { metadata: { name: "b" } }] };
    const detached = page.items.map((i) => shallowCopyObject(i));
    expect(detached.map(nameOf)).toEqual(["a", "b"]);
    expect(detached[0]).not.toBe(page.items[0]);
  });
});
