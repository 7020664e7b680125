import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { transformStripManagedFields } from "./strip-managed-fields.js";

describe("transformStripManagedFields (controller-runtime TestTransformStripManagedFields)", () => {
  it("drops metadata.managedFields and keeps everything else", () => {
    const obj = {
      kind: "PartialObjectMetadata",
      metadata: { name: "a", labels: { x: "y" }, managedFields: [{ manager: "m" }] },
    };
    expect(transformStripManagedFields(obj)).toEqual({
      kind: "PartialObjectMetadata",
      metadata: { name: "a", labels: { x: "y" } },
    });
  });

  it("a frozen object (shared with its source) is left as it is; a copy without managedFields is returned", () => {
    const spec = Object.freeze({ replicas: 1 });
    const metadata = Object.freeze({ name: "a", managedFields: Object.freeze([{ manager: "m" }]) });
    const obj = Object.freeze({ kind: "Deployment", metadata, spec });
    const out = transformStripManagedFields(obj);
    expect(out).toEqual({ kind: "Deployment", metadata: { name: "a" }, spec: { replicas: 1 } });
    expect(out).not.toBe(obj);
    expect(out.spec).toBe(spec);
    expect(obj.metadata).toBe(metadata);
    expect(transformStripManagedFields(out)).toBe(out);
  });

  it("passes through values without a metadata object", () => {
    for (const v of [null, undefined, 3, "s", { metadata: null }, { metadata: "m" }, { key: "ns/a", obj: {} }]) {
      expect(transformStripManagedFields(v)).toBe(v);
    }
  });

  it("property: idempotent, and only managedFields goes", () => {
    const meta = fc.record({
      name: fc.string(),
      labels: fc.dictionary(fc.string(), fc.string()),
      managedFields: fc.option(fc.array(fc.record({ manager: fc.string() })), { nil: undefined }),
    });
    fc.assert(
      fc.property(meta, (m) => {
        const { managedFields: _mf, ...rest } = m;
        const once = transformStripManagedFields({ metadata: { ...m } });
        expect(once).toEqual({ metadata: rest });
        expect("managedFields" in once.metadata).toBe(false);
        expect(transformStripManagedFields(structuredClone(once))).toEqual(once);
      }),
    );
  });
});
