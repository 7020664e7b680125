import type { KubeList } from "@informer-ts/apimachinery";
import { describe, expect, it } from "vitest";
import { encodedListSize, encodedSize } from "./encoded-size.js";

describe("encodedSize", () => {
  it("is the UTF-8 length of the JSON encoding, for objects and whole lists", () => {
    const a = { metadata: { name: "ä" }, data: { k: "€" } };
    expect(encodedSize(a)).toBe(Buffer.byteLength(JSON.stringify(a)));
    const list: KubeList = {
      kind: "ConfigMapList",
      apiVersion: "v1",
      metadata: { resourceVersion: "9" },
      items: [a, { metadata: { name: "b" } }],
    };
    expect(encodedListSize(list)).toBe(Buffer.byteLength(JSON.stringify(list)));
    const empty: KubeList = { ...list, items: [] };
    expect(encodedListSize(empty)).toBe(Buffer.byteLength(JSON.stringify(empty)));
  });
});

describe("encodedSize of stored objects", () => {
  it("measures a stored object and its list copy without TypeMeta exactly, sharing the work", () => {
    const stored = Object.freeze({
      kind: "ConfigMap",
      apiVersion: "v1",
      metadata: Object.freeze({ name: "a", resourceVersion: "7" }),
      data: Object.freeze({ k: "ü".repeat(10) }),
    });
    const { kind: _k, apiVersion: _a, ...copy } = stored;
    expect(encodedSize(copy)).toBe(Buffer.byteLength(JSON.stringify(copy)));
    expect(encodedSize(stored)).toBe(Buffer.byteLength(JSON.stringify(stored)));
    const kindOnly = { kind: "ConfigMap", metadata: stored.metadata, data: stored.data };
    expect(encodedSize(kindOnly)).toBe(Buffer.byteLength(JSON.stringify(kindOnly)));
  });
});
