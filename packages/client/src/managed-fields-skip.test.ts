import { describe, expect, it } from "vitest";
import { cutManagedFields, parseWithoutManagedFields } from "./managed-fields-skip.js";

/** What the cut must decode to: the parsed value with every `managedFields` array member removed. */
function stripped(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(stripped);
  if (typeof value !== "object" || value === null) return value;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) {
    if (k === "managedFields" && Array.isArray(v)) continue;
    out[k] = stripped(v);
  }
  return out;
}

const entry = {
  manager: "kubectl",
  operation: "Apply",
  apiVersion: "v1",
  time: "2026-01-01T00:00:00Z",
  fieldsType: "FieldsV1",
  fieldsV1: { "f:data": { ".": {}, "f:a]": {} }, "f:metadata": { 'k:{"type":"Ready"}': {} } },
};

describe("cutManagedFields", () => {
  it("cuts the member wherever it sits in its object", () => {
    const mf = JSON.stringify([entry]);
    expect(cutManagedFields(`{"metadata":{"name":"a","managedFields":${mf},"uid":"u"}}`)).toBe(
      '{"metadata":{"name":"a","uid":"u"}}',
    );
    expect(cutManagedFields(`{"metadata":{"managedFields":${mf},"name":"a"}}`)).toBe('{"metadata":{"name":"a"}}');
    expect(cutManagedFields(`{"metadata":{"name":"a","managedFields":${mf}}}`)).toBe('{"metadata":{"name":"a"}}');
    expect(cutManagedFields(`{"metadata":{"managedFields":${mf}}}`)).toBe('{"metadata":{}}');
    expect(
      cutManagedFields('{"items":[{"metadata":{"managedFields":[]}},{"metadata":{"managedFields":[[1],"]"]}}]}'),
    ).toBe('{"items":[{"metadata":{}},{"metadata":{}}]}');
  });

  it("leaves text that only looks like the key, and values that are not arrays", () => {
    // Inside a string the key's quotes are escaped; a label value is a string; pretty-printed JSON has a space.
    expect(cutManagedFields(JSON.stringify({ a: 'x,"managedFields":[1]' }))).toBeUndefined();
    expect(cutManagedFields(JSON.stringify({ labels: { managedFields: "[x]" } }))).toBeUndefined();
    expect(cutManagedFields('{"managedFields": [1]}')).toBeUndefined();
    expect(cutManagedFields('{"name":"a"}')).toBeUndefined();
  });

  it("gives up on an array that never closes (a string with a trailing escaped quote included)", () => {
    expect(cutManagedFields('{"managedFields":[{"a":"b\\"]}')).toBeUndefined();
    expect(cutManagedFields('{"managedFields":[[1]')).toBeUndefined();
  });

  it("skips strings whose quotes are escaped, counting backslashes", () => {
    const text = JSON.stringify({ m: { managedFields: ['a\\"]', "b\\\\", '\\\\"]'], n: 1 } });
    expect(cutManagedFields(text)).toBe('{"m":{"n":1}}');
  });
});

describe("parseWithoutManagedFields", () => {
  it("falls back to the whole parse when the cut finds nothing, and reports a body's own JSON error", () => {
    expect(parseWithoutManagedFields('{"a": 1}')).toEqual({ a: 1 });
    expect(() => parseWithoutManagedFields('{"managedFields":[1],')).toThrow(SyntaxError);
  });

  it("decodes generated metadata lists exactly as JSON.parse followed by the strip", () => {
    // A seeded generator (mulberry32) of objects whose strings hold quotes, brackets, backslashes and the key itself.
    let seed = 0x2545f491;
    const rand = () => {
      seed = (seed + 0x6d2b79f5) | 0;
      let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
      t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
      return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
    };
    const pieces = ['"', "\\", "[", "]", "{", "}", ",", ":", "managedFields", '"managedFields":[', "é", "x", " "];
    const str = () =>
      Array.from({ length: Math.floor(rand() * 6) }, () => pieces[Math.floor(rand() * pieces.length)]).join("");
    const value = (depth: number): unknown => {
      const r = rand();
      if (depth > 3 || r < 0.3) return str();
      if (r < 0.4) return Math.floor(rand() * 100);
      if (r < 0.6) return Array.from({ length: Math.floor(rand() * 3) }, () => value(depth + 1));
      const o: Record<string, unknown> = {};
      for (let i = Math.floor(rand() * 4); i > 0; i--) o[rand() < 0.3 ? "managedFields" : str()] = value(depth + 1);
      return o;
    };
    for (let run = 0; run < 500; run++) {
      const items = Array.from({ length: 1 + Math.floor(rand() * 3) }, () => ({
        kind: "PartialObjectMetadata",
        metadata: {
          name: str(),
          ...(rand() < 0.5 && { labels: { managedFields: str() } }),
          ...(rand() < 0.8 && { managedFields: [entry, value(0)] }),
          annotations: { [str()]: str() },
        },
        extra: value(0),
      }));
      const text = JSON.stringify({ kind: "PartialObjectMetadataList", items });
      expect(parseWithoutManagedFields(text)).toEqual(stripped(JSON.parse(text)));
    }
  });
});
