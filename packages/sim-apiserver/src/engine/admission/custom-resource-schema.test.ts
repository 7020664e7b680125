// Ports of apiextensions-apiserver's schema tables, for the keywords the simulator implements:
// pkg/apiserver/schema/pruning/algorithm_test.go (TestPrune), pkg/apiserver/schema/defaulting/algorithm_test.go
// (TestDefault) and pkg/apiserver/validation/validation_test.go (TestValidateCustomResource), plus the messages of
// kube-openapi's validate package that 422s quote.
import { fieldErrorString } from "@informer-ts/apimachinery";
import { describe, expect, it } from "vitest";
import {
  defaultCustomResource,
  pruneCustomResource,
  type StructuralSchema,
  validateCustomResource,
} from "./custom-resource-schema.js";
import { specSchema } from "./custom-resource-schema.test-util.js";

describe("TestPrune", () => {
  const schema = specSchema({
    a: { type: "string" },
    list: { type: "array", items: { type: "object", properties: { x: { type: "integer" } } } },
    free: { type: "object", "x-kubernetes-preserve-unknown-fields": true },
    map: { type: "object", additionalProperties: { type: "object", properties: { v: { type: "string" } } } },
    embedded: {
      type: "object",
      "x-kubernetes-embedded-resource": true,
      "x-kubernetes-preserve-unknown-fields": true,
    },
  });

  it("drops unspecified fields at every level, keeps apiVersion/kind/metadata at the root", () => {
    const obj = {
      apiVersion: "example.com/v1",
      kind: "Widget",
      metadata: { name: "w", unknownMeta: 1 },
      unknownRoot: true,
      spec: { a: "x", b: 1, list: [{ x: 1, y: 2 }], free: { anything: { deep: 1 } }, map: { k: { v: "1", w: "2" } } },
    };
    const pruned = pruneCustomResource(obj, schema);
    expect(pruned).toEqual(["metadata.unknownMeta", "unknownRoot", "spec.b", "spec.list[0].y", "spec.map.k.w"]);
    expect(obj).toEqual({
      apiVersion: "example.com/v1",
      kind: "Widget",
      metadata: { name: "w" },
      spec: { a: "x", list: [{ x: 1 }], free: { anything: { deep: 1 } }, map: { k: { v: "1" } } },
    });
  });

  it("embedded resources keep apiVersion/kind and prune their metadata to ObjectMeta", () => {
    const obj = {
      spec: { embedded: { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "x", unknownSubMeta: 1 }, data: {} } },
    };
    expect(pruneCustomResource(obj, schema)).toEqual(["spec.embedded.metadata.unknownSubMeta"]);
    expect(obj.spec.embedded).toEqual({ apiVersion: "v1", kind: "ConfigMap", metadata: { name: "x" }, data: {} });
  });

  it("a null of a field that is not nullable is dropped (its default may apply); a nullable null stays", () => {
    const s: StructuralSchema = {
      type: "object",
      properties: { a: { type: "string", default: "d" }, b: { type: "string", nullable: true } },
    };
    const obj: Record<string, unknown> = { a: null, b: null };
    expect(pruneCustomResource(obj, s)).toEqual([]);
    defaultCustomResource(obj, s);
    expect(obj).toEqual({ a: "d", b: null });
  });

  it("no schema: nothing pruned", () => {
    const obj = { spec: { anything: 1 } };
    expect(pruneCustomResource(obj, undefined)).toEqual([]);
    expect(obj).toEqual({ spec: { anything: 1 } });
  });
});

describe("TestDefault", () => {
  it("fills absent properties, in objects, list items and additionalProperties, defaults inside defaults", () => {
    const s = specSchema(
      {
        replicas: { type: "integer", default: 1 },
        ports: {
          type: "array",
          items: { type: "object", properties: { protocol: { type: "string", default: "TCP" } } },
        },
        byName: {
          type: "object",
          additionalProperties: { type: "object", properties: { on: { type: "boolean", default: true } } },
        },
      },
      { default: {} },
    );
    const obj: Record<string, unknown> = {};
    defaultCustomResource(obj, s);
    expect(obj).toEqual({ spec: { replicas: 1 } });
    const given = { spec: { replicas: 3, ports: [{}, { protocol: "UDP" }], byName: { a: {} } } };
    defaultCustomResource(given, s);
    expect(given.spec).toEqual({
      replicas: 3,
      ports: [{ protocol: "TCP" }, { protocol: "UDP" }],
      byName: { a: { on: true } },
    });
  });
});

describe("TestValidateCustomResource", () => {
  const v = (schema: StructuralSchema, obj: unknown) => validateCustomResource(obj, schema).map(fieldErrorString);

  it("types, with kube-openapi's message", () => {
    expect(v(specSchema({ replicas: { type: "integer" } }), { spec: { replicas: "three" } })).toEqual([
      'spec.replicas: Invalid value: "string": spec.replicas in body must be of type integer: "string"',
    ]);
    expect(
      v(specSchema({ f: { type: "number" }, b: { type: "boolean" }, o: { type: "object" } }), {
        spec: { f: 1.5, b: 1, o: [] },
      }),
    ).toEqual([
      'spec.b: Invalid value: "integer": spec.b in body must be of type boolean: "integer"',
      'spec.o: Invalid value: "array": spec.o in body must be of type object: "array"',
    ]);
    expect(v(specSchema({ n: { type: "string" } }), { spec: { n: null } })).toEqual([
      'spec.n: Invalid value: "null": spec.n in body must be of type string: "null"',
    ]);
    expect(v(specSchema({ n: { type: "string", nullable: true } }), { spec: { n: null } })).toEqual([]);
  });

  it("minimum, maximum (exclusive too), multipleOf", () => {
    const s = specSchema({
      r: { type: "integer", minimum: 1, maximum: 10 },
      e: { type: "integer", minimum: 0, exclusiveMinimum: true, maximum: 5, exclusiveMaximum: true },
      m: { type: "integer", multipleOf: 3 },
    });
    expect(v(s, { spec: { r: 20, e: 5, m: 4 } })).toEqual([
      "spec.r: Invalid value: 20: spec.r in body should be less than or equal to 10",
      "spec.e: Invalid value: 5: spec.e in body should be less than 5",
      "spec.m: Invalid value: 4: spec.m in body should be a multiple of 3",
    ]);
    expect(v(s, { spec: { r: 0, e: 0 } })).toEqual([
      "spec.r: Invalid value: 0: spec.r in body should be greater than or equal to 1",
      "spec.e: Invalid value: 0: spec.e in body should be greater than 0",
    ]);
  });

  it("enum, pattern, lengths, required", () => {
    const s = specSchema(
      {
        mode: { type: "string", enum: ["a", "b"] },
        cron: { type: "string", pattern: "^(\\d+|\\*)(/\\d+)?(\\s+(\\d+|\\*)(/\\d+)?){4}$" },
        short: { type: "string", maxLength: 3 },
        long: { type: "string", minLength: 2 },
      },
      { required: ["mode", "must"] },
    );
    expect(v(s, { spec: { mode: "c", cron: "* * *", short: "abcd", long: "a" } })).toEqual([
      "spec.must: Required value",
      'spec.mode: Unsupported value: "c": supported values: "a", "b"',
      "spec.cron: Invalid value: \"* * *\": spec.cron in body should match '^(\\d+|\\*)(/\\d+)?(\\s+(\\d+|\\*)(/\\d+)?){4}$'",
      "spec.short: Too long: may not be more than 3 bytes",
      'spec.long: Invalid value: "a": spec.long in body should be at least 2 chars long',
    ]);
    expect(v(s, { spec: { mode: "a", must: 1, cron: "* * * * */5" } })).toEqual([]);
  });

  it("items: maxItems, minItems, uniqueItems, and the items' own schema", () => {
    const s = specSchema({
      l: { type: "array", maxItems: 2, uniqueItems: true, items: { type: "string" } },
      m: { type: "array", minItems: 1 },
    });
    expect(v(s, { spec: { l: ["a", "a", 1], m: [] } })).toEqual([
      "spec.l: Too many: 3: must have at most 2 items",
      'spec.l[1]: Duplicate value: "a"',
      'spec.l[2]: Invalid value: "integer": spec.l[2] in body must be of type string: "integer"',
      'spec.m: Invalid value: "0": spec.m in body should have at least 1 items',
    ]);
  });

  it("x-kubernetes-int-or-string, formats, additionalProperties, embedded resources", () => {
    const s = specSchema({
      port: { "x-kubernetes-int-or-string": true },
      at: { type: "string", format: "date-time" },
      small: { type: "integer", format: "int32" },
      labels: { type: "object", additionalProperties: { type: "string" } },
      tpl: { type: "object", "x-kubernetes-embedded-resource": true, "x-kubernetes-preserve-unknown-fields": true },
    });
    expect(
      v(s, {
        spec: {
          port: "http",
          at: "2026-01-01T00:00:00Z",
          small: 5,
          labels: { a: "b" },
          tpl: { apiVersion: "v1", kind: "Pod" },
        },
      }),
    ).toEqual([]);
    expect(v(s, { spec: { port: 1.5, at: "yesterday", small: 2 ** 31, labels: { a: 1 }, tpl: {} } })).toEqual([
      'spec.port: Invalid value: "number": spec.port in body must be of type integer,string: "number"',
      'spec.at: Invalid value: "yesterday": spec.at in body must be of type date-time: "yesterday"',
      'spec.small: Invalid value: 2147483648: spec.small in body must be of type int32: "2147483648"',
      'spec.labels.a: Invalid value: "integer": spec.labels.a in body must be of type string: "integer"',
      "spec.tpl.apiVersion: Required value: must not be empty",
      "spec.tpl.kind: Required value: must not be empty",
    ]);
  });
});
