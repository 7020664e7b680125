import { describe, expect, it } from "vitest";
import { deepCopyJson, deepFreeze, shareUnchanged } from "./object-util.js";

describe("deepCopyJson", () => {
  it("copies JSON values deeply, keeping key order, undefined members and bigints, as structuredClone does", () => {
    const v = { b: 1, a: [{ x: "s", y: null, z: undefined }, 2n ** 60n, true], c: { d: { e: -0 } } };
    const c = deepCopyJson(v);
    expect(c).toStrictEqual(structuredClone(v));
    expect(Object.keys(c)).toEqual(["b", "a", "c"]);
    expect(Object.hasOwn(c.a[0] as object, "z")).toBe(true);
    expect(c.a).not.toBe(v.a);
    expect(c.c.d).not.toBe(v.c.d);
    (c.c.d as { e: number }).e = 5;
    expect(v.c.d.e).toBe(-0);
  });

  it("copies frozen values into unfrozen ones, and hands values that are not plain JSON to structuredClone", () => {
    const frozen = deepFreeze({ a: { b: [1] } });
    const c = deepCopyJson(frozen);
    expect(Object.isFrozen(c) || Object.isFrozen(c.a) || Object.isFrozen(c.a.b)).toBe(false);
    const d = new Date(0);
    const out = deepCopyJson({ d });
    expect(out.d).toBeInstanceOf(Date);
    expect(out.d).not.toBe(d);
  });
});

describe("shareUnchanged", () => {
  const prev = deepFreeze({
    metadata: { name: "a", labels: { app: "x" } },
    spec: {
      containers: [
        { name: "c", image: "i:1", ports: [{ containerPort: 80 }] },
        { name: "s", image: "e" },
      ],
    },
  });

  it("replaces every subtree equal to the previous one's with it, keeps what changed, serializes the same", () => {
    const next = structuredClone(prev) as typeof prev;
    (next.spec.containers[0] as { image: string }).image = "i:2";
    const json = JSON.stringify(next);
    const out = shareUnchanged(next, prev);
    expect(JSON.stringify(out)).toBe(json);
    expect(out.metadata).toBe(prev.metadata);
    expect(out.spec).not.toBe(prev.spec);
    expect(out.spec.containers[0]).not.toBe(prev.spec.containers[0]);
    expect(out.spec.containers[0]!.ports).toBe(prev.spec.containers[0]!.ports);
    expect(out.spec.containers[1]).toBe(prev.spec.containers[1]);
  });

  it("returns the previous value when everything is equal, and shares nothing whose key order differs", () => {
    expect(shareUnchanged(structuredClone(prev), prev)).toBe(prev);
    const reordered = { spec: prev.spec, metadata: { labels: { app: "x" }, name: "a" } };
    const out = shareUnchanged(reordered, prev);
    expect(out).not.toBe(prev);
    expect(out.metadata).not.toBe(prev.metadata);
    expect(out.metadata.labels).toBe(prev.metadata.labels);
    expect(Object.keys(out.metadata)).toEqual(["labels", "name"]);
  });

  it("copies a frozen node of the new value rather than writing into it", () => {
    const inner = deepFreeze({ labels: { app: "x" }, extra: { k: "v" } });
    const next = { metadata: { name: "a", labels: { app: "x" } }, spec: inner };
    const out = shareUnchanged(next, { metadata: prev.metadata, spec: { labels: { app: "x" } } });
    expect(out.spec).toEqual(inner);
    expect(out.metadata).toBe(prev.metadata);
  });
});
