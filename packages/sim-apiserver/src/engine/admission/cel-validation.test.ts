// Cases of apiextensions-apiserver's CEL validation tables (pkg/apiserver/schema/cel/validation_test.go:
// TestValidationExpressions, TestValidationExpressionsAtSchemaLevels, TestMessageExpression, TestRatcheting's
// transition rules) for what the simulator evaluates, with @bufbuild/cel.
import { fieldErrorString } from "@informer-ts/apimachinery";
import { describe, expect, it } from "vitest";
import { validateCustomResourceRules } from "./cel-validation.js";
import type { StructuralSchema } from "./custom-resource-schema.js";

const withRules = (rules: unknown[], properties: Record<string, StructuralSchema>): StructuralSchema => ({
  type: "object",
  properties: { spec: { type: "object", properties, "x-kubernetes-validations": rules } as StructuralSchema },
});
const v = (schema: StructuralSchema, obj: unknown, old?: unknown) =>
  validateCustomResourceRules(obj, schema, old).map(fieldErrorString);

describe("TestValidationExpressions", () => {
  const schema = withRules(
    [
      { rule: "self.minReplicas <= self.replicas", message: "replicas should be greater than or equal to minReplicas" },
      { rule: "self.name.startsWith('w')" },
      { rule: "size(self.tags) <= 2", messageExpression: "'at most 2 tags, got ' + string(size(self.tags))" },
    ],
    {
      replicas: { type: "integer" },
      minReplicas: { type: "integer" },
      name: { type: "string" },
      tags: { type: "array", items: { type: "string" } },
    },
  );

  it("true rules pass; integers are CEL ints", () => {
    expect(v(schema, { spec: { replicas: 3, minReplicas: 1, name: "web", tags: ["a"] } })).toEqual([]);
  });

  it("a false rule is Invalid on its node with message, messageExpression or failed rule", () => {
    expect(v(schema, { spec: { replicas: 1, minReplicas: 3, name: "api", tags: ["a", "b", "c"] } })).toEqual([
      'spec: Invalid value: "object": replicas should be greater than or equal to minReplicas',
      "spec: Invalid value: \"object\": failed rule: self.name.startsWith('w')",
      'spec: Invalid value: "object": at most 2 tags, got 3',
    ]);
  });

  it("an evaluation error (a missing field) is reported with the rule", () => {
    expect(v(schema, { spec: { replicas: 1, name: "w", tags: [] } })).toEqual([
      expect.stringMatching(/^spec: Invalid value: "object": self\.minReplicas <= self\.replicas: .*minReplicas/),
    ]);
  });
});

describe("TestValidationExpressionsAtSchemaLevels", () => {
  it("rules on scalars and list items bind self to that value; fieldPath moves the error", () => {
    const schema: StructuralSchema = {
      type: "object",
      properties: {
        spec: {
          type: "object",
          properties: {
            port: {
              type: "integer",
              "x-kubernetes-validations": [{ rule: "self > 1024", message: "must be unprivileged" }],
            },
            names: {
              type: "array",
              items: { type: "string", "x-kubernetes-validations": [{ rule: "self != 'root'" }] },
            },
          },
          "x-kubernetes-validations": [{ rule: "self.port != 8080", fieldPath: ".port", message: "8080 is reserved" }],
        } as StructuralSchema,
      },
    };
    expect(v(schema, { spec: { port: 2000, names: ["a"] } })).toEqual([]);
    expect(v(schema, { spec: { port: 8080 } })).toEqual(['spec.port: Invalid value: "object": 8080 is reserved']);
    expect(v(schema, { spec: { port: 80, names: ["a", "root"] } })).toEqual([
      'spec.port: Invalid value: "integer": must be unprivileged',
      "spec.names[1]: Invalid value: \"string\": failed rule: self != 'root'",
    ]);
  });
});

describe("transition rules (oldSelf)", () => {
  const schema = withRules([{ rule: "self.replicas >= oldSelf.replicas", message: "replicas may not decrease" }], {
    replicas: { type: "integer" },
  });
  it("are skipped on create and evaluated against the old object on update", () => {
    expect(v(schema, { spec: { replicas: 1 } })).toEqual([]);
    expect(v(schema, { spec: { replicas: 3 } }, { spec: { replicas: 2 } })).toEqual([]);
    expect(v(schema, { spec: { replicas: 1 } }, { spec: { replicas: 2 } })).toEqual([
      'spec: Invalid value: "object": replicas may not decrease',
    ]);
  });
});
