// SortedKeyMap: the key order of etcd and the watch cache's btree (reference/apiserver.md §1.2, lists sorted by key).
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { SortedKeyMap } from "./sorted-keys.js";

describe("SortedKeyMap", () => {
  it("walks keys in byte order whatever the insertion order; prefix ranges and lower bounds agree with a sorted array", () => {
    const key = fc.stringMatching(/^[a-c]{0,2}\/?[a-c]{0,2}$/);
    const op = fc.oneof(fc.record({ set: key }), fc.record({ del: key }), fc.record({ clear: fc.constant(true) }));
    fc.assert(
      fc.property(fc.array(op, { maxLength: 60 }), fc.array(key, { maxLength: 5 }), (ops, probes) => {
        const m = new SortedKeyMap<number>();
        const model = new Map<string, number>();
        ops.forEach((o, i) => {
          if ("set" in o) {
            m.set(o.set, i);
            model.set(o.set, i);
          } else if ("del" in o) {
            expect(m.delete(o.del)).toBe(model.delete(o.del));
          } else {
            m.clear();
            model.clear();
          }
        });
        const sorted = [...model.keys()].sort();
        expect(m.keys()).toEqual(sorted);
        expect(m.size).toBe(model.size);
        for (const k of sorted) expect(m.get(k)).toBe(model.get(k));
        for (const p of probes) {
          expect(m.lowerBound(p)).toBe(sorted.filter((k) => k < p).length);
          const [lo, hi] = m.prefixRange(p);
          expect(sorted.slice(lo, hi)).toEqual(sorted.filter((k) => k.startsWith(p)));
        }
      }),
    );
  });

  it("namespace prefixes do not leak into longer namespace names", () => {
    const m = new SortedKeyMap<true>();
    for (const k of ["a/x", "ab/y", "a/z", "b/q"]) m.set(k, true);
    const [lo, hi] = m.prefixRange("a/");
    expect(m.keys().slice(lo, hi)).toEqual(["a/x", "a/z"]);
    expect(m.prefixRange("")).toEqual([0, 4]);
  });
});
