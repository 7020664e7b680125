import { describe, expect, it } from "vitest";
import { DeletedFinalStateUnknown, isDeletedFinalStateUnknown } from "./tombstone.js";

describe("DeletedFinalStateUnknown", () => {
  it("carries key and (possibly missing) last known object", () => {
    const obj = { metadata: { name: "a" } };
    const t = new DeletedFinalStateUnknown("ns/a", obj);
    expect(t.key).toBe("ns/a");
    expect(t.obj).toBe(obj);
    expect(new DeletedFinalStateUnknown("k", undefined).obj).toBeUndefined();
  });
  it("is a frozen value without metadata (so it never moves a store's RV)", () => {
    const t = new DeletedFinalStateUnknown("k", { metadata: { resourceVersion: "5" } });
    expect(Object.isFrozen(t)).toBe(true);
    expect("metadata" in t).toBe(false);
    expect(Object.keys(t)).toEqual(["key", "obj"]);
  });
  it("isDeletedFinalStateUnknown recognises instances only", () => {
    expect(isDeletedFinalStateUnknown(new DeletedFinalStateUnknown("k", undefined))).toBe(true);
    expect(isDeletedFinalStateUnknown({ key: "k", obj: undefined })).toBe(false);
    expect(isDeletedFinalStateUnknown(null)).toBe(false);
    expect(isDeletedFinalStateUnknown("k")).toBe(false);
  });
  it("isDeletedFinalStateUnknown recognises a tombstone made by another copy of the module (shared brand)", () => {
    const brand = Symbol.for("@informer-ts/cache.DeletedFinalStateUnknown");
    class OtherCopy {
      constructor(
        readonly key: string,
        readonly obj: unknown,
      ) {}
    }
    Object.defineProperty(OtherCopy.prototype, brand, { value: true });
    expect(isDeletedFinalStateUnknown(new OtherCopy("k", undefined))).toBe(true);
  });
});
