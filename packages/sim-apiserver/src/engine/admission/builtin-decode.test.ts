import { describe, expect, it } from "vitest";
import { decodeBuiltin } from "./builtin-decode.js";
import { duplicateJsonFields } from "./duplicate-fields.js";

describe("decodeBuiltin (strict decoding into the v1.34 types)", () => {
  it("names and drops unknown fields at any depth, lists indexed, in document order", () => {
    const pod = {
      apiVersion: "v1",
      kind: "Pod",
      metadata: { name: "p", unknownMeta: 1, labels: { a: "b" } },
      spec: { containers: [{ name: "c", image: "i", unknownNested: true, env: [{ name: "E", bogus: 1 }] }], foo: 2 },
    };
    expect(decodeBuiltin("api.core.v1.Pod", pod)).toEqual({
      unknownFields: [
        "metadata.unknownMeta",
        "spec.containers[0].unknownNested",
        "spec.containers[0].env[0].bogus",
        "spec.foo",
      ],
    });
    expect(pod).toEqual({
      apiVersion: "v1",
      kind: "Pod",
      metadata: { name: "p", labels: { a: "b" } },
      spec: { containers: [{ name: "c", image: "i", env: [{ name: "E" }] }] },
    });
  });

  it("maps of strings, int-or-string, quantities, times and raw JSON accept what Go accepts", () => {
    const d = {
      spec: {
        strategy: { rollingUpdate: { maxSurge: 1, maxUnavailable: "25%" } },
        template: {
          metadata: { annotations: { a: "b" }, creationTimestamp: null },
          spec: { containers: [{ name: "c", resources: { limits: { cpu: 1, memory: "1Gi" } } }] },
        },
      },
      metadata: { managedFields: [{ fieldsV1: { "f:spec": {} } }] },
    };
    expect(decodeBuiltin("api.apps.v1.Deployment", d)).toEqual({ unknownFields: [] });
  });

  it("a value of the wrong JSON type is Go's UnmarshalTypeError, naming the struct, the path and the Go type", () => {
    const cases: Array<[string, Record<string, unknown>, string]> = [
      [
        "api.apps.v1.Deployment",
        { spec: { replicas: "three" } },
        "string into Go struct field DeploymentSpec.spec.replicas of type int32",
      ],
      [
        "api.apps.v1.Deployment",
        { spec: { replicas: 1.5 } },
        "number 1.5 into Go struct field DeploymentSpec.spec.replicas of type int32",
      ],
      ["api.core.v1.ConfigMap", { data: { a: 1 } }, "number into Go struct field ConfigMap.data of type string"],
      ["api.core.v1.ConfigMap", { immutable: "yes" }, "string into Go struct field ConfigMap.immutable of type bool"],
      ["api.core.v1.Pod", { spec: "x" }, "string into Go struct field Pod.spec of type v1.PodSpec"],
      [
        "api.core.v1.Pod",
        { spec: { containers: {} } },
        "object into Go struct field PodSpec.spec.containers of type []v1.Container",
      ],
    ];
    for (const [root, obj, want] of cases) {
      expect(decodeBuiltin(root, obj).typeError).toBe(`json: cannot unmarshal ${want}`);
    }
  });

  it("an unknown root is a RangeError naming it", () => {
    expect(() => decodeBuiltin("api.core.v1.Nope", {})).toThrow(/no OpenAPI definition "api.core.v1.Nope"/);
  });
});

describe("duplicateJsonFields", () => {
  it("finds duplicate keys with their paths, in document order", () => {
    const text = `{"apiVersion":"apps/v1","spec":{"replicas":2,"replicas":3,"template":{"spec":{"containers":[{"name":"a"},{"name":"b","name":"c"}]}}},"spec":{}}`;
    expect(duplicateJsonFields(text)).toEqual(["spec.replicas", "spec.template.spec.containers[1].name", "spec"]);
  });
  it("strings with braces, escaped quotes and escaped keys do not confuse it", () => {
    expect(duplicateJsonFields(`{"a":"{\\"a\\":1}","b":[1,{"a":2}],"\\u0061":3}`)).toEqual(["a"]);
    expect(duplicateJsonFields(`{"a":{"x":1},"b":{"x":1}}`)).toEqual([]);
  });
});
