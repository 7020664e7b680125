import { describe, expect, it } from "vitest";
import { deepFreeze, isDeepFrozen } from "../engine/object-util.js";
import { jsonByteLengthOf, jsonOf } from "./encoding-cache.js";

const object = () => ({
  apiVersion: "v1",
  kind: "ConfigMap",
  metadata: { name: "cm", namespace: "ns", labels: { tier: "é" } },
  data: { v: "naïve ☃ text" },
});

describe("encoding-cache", () => {
  it("encodes a deep-frozen engine object once: the same string every time, equal to JSON.stringify", () => {
    const o = deepFreeze(object());
    expect(isDeepFrozen(o)).toBe(true);
    const a = jsonOf(o);
    expect(a).toBe(JSON.stringify(o));
    expect(jsonOf(o)).toBe(a);
    expect(jsonByteLengthOf(o)).toBe(Buffer.byteLength(a, "utf8"));
  });

  it("re-encodes values the engine did not deep-freeze: a change below a shallow freeze shows", () => {
    const mutable = object();
    expect(jsonOf(mutable)).toBe(JSON.stringify(mutable));
    mutable.data.v = "changed";
    expect(jsonOf(mutable)).toContain('"v":"changed"');
    const shallow = Object.freeze(object());
    expect(isDeepFrozen(shallow)).toBe(false);
    expect(jsonOf(shallow)).toContain("naïve");
    shallow.data.v = "changed too";
    expect(jsonOf(shallow)).toContain('"v":"changed too"');
    expect(jsonByteLengthOf(shallow)).toBe(Buffer.byteLength(JSON.stringify(shallow)));
  });

  it("leaves a value someone else froze as it is (its depth is unknown)", () => {
    const o = Object.freeze(object());
    expect(deepFreeze(o)).toBe(o);
    expect(isDeepFrozen(o)).toBe(false);
    expect(Object.isFrozen(o.metadata)).toBe(false);
  });
});
