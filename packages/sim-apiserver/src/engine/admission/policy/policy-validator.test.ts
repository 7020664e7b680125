// validating/validator_test.go's TestValidate, with real expressions in place of its fake filter: `true` for an
// admitting evaluation, `false` for a denying one, `1 / 0` for an evaluation error.
import { describe, expect, it } from "vitest";
import { compilePolicy, type PolicyDecision, validatePolicy } from "./policy-validator.js";

interface Case {
  readonly name: string;
  readonly failurePolicy?: string;
  readonly validations?: readonly Record<string, unknown>[];
  readonly matchConditions?: readonly Record<string, unknown>[];
  readonly auditAnnotations?: readonly Record<string, unknown>[];
  readonly decisions: readonly Partial<PolicyDecision>[];
  readonly annotations?: readonly { key: string; value: string }[];
  readonly annotationErrors?: number;
}

const PASS = { expression: "true" };
const ERROR = { expression: "1 / 0" };
const ADMIT = { action: "admit" } as const;
const DENY = { action: "deny" } as const;

const CASES: readonly Case[] = [
  { name: "test pass", validations: [PASS], decisions: [ADMIT] },
  { name: "test multiple pass", validations: [PASS, PASS], decisions: [ADMIT, ADMIT] },
  { name: "test error with failurepolicy ignore", failurePolicy: "Ignore", validations: [ERROR], decisions: [ADMIT] },
  { name: "test error with failurepolicy nil", validations: [ERROR], decisions: [DENY] },
  { name: "test fail with failurepolicy fail", failurePolicy: "Fail", validations: [ERROR], decisions: [DENY] },
  {
    name: "test fail with failurepolicy ignore with multiple validations",
    failurePolicy: "Ignore",
    validations: [PASS, ERROR],
    decisions: [ADMIT, ADMIT],
  },
  {
    name: "test fail with failurepolicy nil with multiple validations",
    validations: [PASS, ERROR],
    decisions: [ADMIT, DENY],
  },
  {
    name: "test fail with failurepolicy fail with multiple failed validations",
    failurePolicy: "Fail",
    validations: [ERROR, ERROR],
    decisions: [DENY, DENY],
  },
  {
    name: "test reason for fail no reason set",
    validations: [{ expression: "1 == 2" }],
    decisions: [{ action: "deny", reason: "Invalid", message: "failed expression: 1 == 2" }],
  },
  {
    name: "test reason for fail reason set",
    validations: [{ expression: "1 == 2", reason: "Forbidden" }],
    decisions: [{ action: "deny", reason: "Forbidden", message: "failed expression: 1 == 2" }],
  },
  {
    name: "test reason for failed validations multiple validations",
    validations: [
      { expression: "1 == 2", reason: "Forbidden" },
      { expression: "2 == 3", reason: "Unauthorized" },
    ],
    decisions: [
      { action: "deny", reason: "Forbidden", message: "failed expression: 1 == 2" },
      { action: "deny", reason: "Unauthorized", message: "failed expression: 2 == 3" },
    ],
  },
  {
    name: "test message for failed validations",
    validations: [{ expression: "false", reason: "Forbidden", message: "test" }],
    decisions: [{ action: "deny", reason: "Forbidden", message: "test" }],
  },
  {
    name: "test message for failed validations multiple validations",
    validations: [
      { expression: "false", message: "test1" },
      { expression: "false", message: "test2" },
    ],
    decisions: [
      { action: "deny", message: "test1" },
      { action: "deny", message: "test2" },
    ],
  },
  {
    name: "test empty validations with non-empty audit annotations",
    auditAnnotations: [{ key: "k", valueExpression: "'string value'" }],
    decisions: [],
    annotations: [{ key: "k", value: "string value" }],
  },
  {
    name: "test non-empty validations with non-empty audit annotations",
    validations: [PASS],
    auditAnnotations: [{ key: "k", valueExpression: "'string value'" }],
    decisions: [ADMIT],
    annotations: [{ key: "k", value: "string value" }],
  },
  {
    name: "test audit annotations with null return",
    auditAnnotations: [
      { key: "a", valueExpression: "null" },
      { key: "b", valueExpression: "'string value'" },
    ],
    decisions: [],
    annotations: [{ key: "b", value: "string value" }],
  },
  {
    name: "test audit annotations with failurePolicy=fail",
    failurePolicy: "Fail",
    auditAnnotations: [{ key: "a", valueExpression: "1 / 0" }],
    decisions: [],
    annotationErrors: 1,
  },
  {
    name: "test audit annotations with failurePolicy=ignore",
    failurePolicy: "Ignore",
    auditAnnotations: [{ key: "a", valueExpression: "1 / 0" }],
    decisions: [],
    annotationErrors: 0,
  },
  {
    name: "test messageExpression",
    validations: [{ expression: "false", message: "ignored", messageExpression: "'evaluated ' + string(2)" }],
    decisions: [{ action: "deny", message: "evaluated 2" }],
  },
  {
    name: "test messageExpression failed, falls back to message",
    validations: [{ expression: "false", message: "fallback", messageExpression: "'a' + 1" }],
    decisions: [{ action: "deny", message: "fallback" }],
  },
  {
    name: "test messageExpression multi-line or empty, falls back",
    validations: [
      { expression: "false", message: "no newlines", messageExpression: "'line\\nbreak'" },
      { expression: "false", messageExpression: "'   '" },
    ],
    decisions: [
      { action: "deny", message: "no newlines" },
      { action: "deny", message: "failed expression: false" },
    ],
  },
  {
    name: "test match conditions not met: no decisions",
    matchConditions: [{ name: "never", expression: "false" }],
    validations: [{ expression: "false" }],
    decisions: [],
  },
  {
    name: "test match condition error with failurePolicy=ignore",
    failurePolicy: "Ignore",
    matchConditions: [{ name: "broken", expression: "1 / 0 == 1" }],
    validations: [{ expression: "false" }],
    decisions: [{ action: "admit", evaluation: "error" }],
  },
];

describe("TestValidate", () => {
  for (const c of CASES) {
    it(c.name, () => {
      const p = compilePolicy({
        metadata: { name: "p" },
        spec: {
          ...(c.failurePolicy !== undefined && { failurePolicy: c.failurePolicy }),
          validations: c.validations ?? [],
          ...(c.matchConditions !== undefined && { matchConditions: c.matchConditions }),
          ...(c.auditAnnotations !== undefined && { auditAnnotations: c.auditAnnotations }),
        },
      });
      const result = validatePolicy(p, { object: null, oldObject: null, params: null });
      expect(result.decisions).toHaveLength(c.decisions.length);
      c.decisions.forEach((want, i) => {
        expect(result.decisions[i]).toMatchObject(want);
      });
      expect(result.auditAnnotations).toEqual(c.annotations ?? []);
      expect(result.auditAnnotationErrors).toHaveLength(c.annotationErrors ?? 0);
    });
  }

  it("an evaluation error names the expression and cel-go's cause", () => {
    const p = compilePolicy({ spec: { validations: [{ expression: "object.spec.x == 1" }] } });
    const obj = new Map([["spec", new Map()]]);
    expect(validatePolicy(p, { object: obj }).decisions[0]).toEqual({
      action: "deny",
      evaluation: "error",
      message: "expression 'object.spec.x == 1' resulted in error: no such key: x",
    });
  });

  it("variables: later ones and validations see earlier ones; a failed variable fails who uses it", () => {
    const p = compilePolicy({
      spec: {
        variables: [
          { name: "replicas", expression: "object.replicas" },
          { name: "odd", expression: "variables.replicas % 2 == 1" },
          { name: "broken", expression: "object.missing" },
        ],
        validations: [{ expression: "variables.odd" }, { expression: "variables.broken == 1" }],
      },
    });
    const result = validatePolicy(p, { object: new Map([["replicas", 2n]]) });
    expect(result.decisions[0]).toMatchObject({ action: "deny", message: "failed expression: variables.odd" });
    expect(result.decisions[1]).toMatchObject({ action: "deny", evaluation: "error" });
    expect(result.decisions[1]!.message).toContain('composited variable "broken"');
  });

  it("a validation that does not compile fails at evaluation", () => {
    const p = compilePolicy({ spec: { validations: [{ expression: "object.(" }] } });
    const d = validatePolicy(p, { object: null }).decisions[0]!;
    expect(d).toMatchObject({ action: "deny", evaluation: "error" });
    expect(d.message).toMatch(/^compilation error: compilation failed: ERROR: /);
  });
});
