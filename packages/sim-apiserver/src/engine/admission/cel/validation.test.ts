// Cases of apiextensions-apiserver's CEL validation tables (pkg/apiserver/schema/cel/validation_test.go:
// TestValidationExpressions, TestValidationExpressionsAtSchemaLevels, TestMessageExpression, TestRatcheting's
// transition rules) for what the simulator evaluates, with @bufbuild/cel.
import { fieldErrorString } from "@informer-ts/apimachinery";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { StructuralSchema } from "../custom-resource-schema.js";
import {
  specSchema,
  specWithRules,
  type ValidationRule,
  withValidations,
} from "../custom-resource-schema.test-util.js";
import { CEL_COST_LIMITS } from "./cost.js";
import { validateCustomResourceRules, validateSchemaRules } from "./validation.js";

const v = (schema: StructuralSchema, obj: unknown, old?: unknown) =>
  validateCustomResourceRules(obj, schema, old).map(fieldErrorString);

describe("TestValidationExpressions", () => {
  const schema = specWithRules(
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

  it("an evaluation error (a missing field) is reported with the rule, as `<error> evaluating rule: <rule>`", () => {
    expect(v(schema, { spec: { replicas: 1, name: "w", tags: [] } })).toEqual([
      'spec: Invalid value: "object": no such key: minReplicas evaluating rule: replicas should be greater than or equal to minReplicas',
    ]);
  });
});

describe("TestValidationExpressionsAtSchemaLevels", () => {
  it("rules on scalars and list items bind self to that value; fieldPath moves the error", () => {
    const schema = specWithRules([{ rule: "self.port != 8080", fieldPath: ".port", message: "8080 is reserved" }], {
      port: withValidations({ type: "integer" }, [{ rule: "self > 1024", message: "must be unprivileged" }]),
      names: { type: "array", items: withValidations({ type: "string" }, [{ rule: "self != 'root'" }]) },
    });
    expect(v(schema, { spec: { port: 2000, names: ["a"] } })).toEqual([]);
    expect(v(schema, { spec: { port: 8080 } })).toEqual(['spec.port: Invalid value: "object": 8080 is reserved']);
    expect(v(schema, { spec: { port: 80, names: ["a", "root"] } })).toEqual([
      'spec.port: Invalid value: "integer": must be unprivileged',
      "spec.names[1]: Invalid value: \"string\": failed rule: self != 'root'",
    ]);
  });
});

describe("transition rules (oldSelf)", () => {
  const schema = specWithRules([{ rule: "self.replicas >= oldSelf.replicas", message: "replicas may not decrease" }], {
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

const ROOT = "spec.versions[0].schema.openAPIV3Schema";
const atCrd = (schema: unknown) => validateSchemaRules(schema, ROOT).map(fieldErrorString);
const HINT =
  "(try simplifying the rule, or adding maxItems, maxProperties, and maxLength where arrays, maps, and strings are declared)";

describe("TestReasonAndFieldPath", () => {
  const schema = (reason: string | undefined) =>
    specWithRules([{ rule: "self.replicas > 0", message: " must be positive ", fieldPath: ".replicas", reason }], {
      replicas: { type: "integer" },
    });
  it("reason picks the cause (fieldErrorForReason); message is trimmed; fieldPath moves the error", () => {
    const obj = { spec: { replicas: 0 } };
    expect(v(schema(undefined), obj)).toEqual(['spec.replicas: Invalid value: "object": must be positive']);
    expect(v(schema("FieldValueForbidden"), obj)).toEqual(["spec.replicas: Forbidden: must be positive"]);
    expect(v(schema("FieldValueRequired"), obj)).toEqual(["spec.replicas: Required value: must be positive"]);
    expect(v(schema("FieldValueDuplicate"), obj)).toEqual(['spec.replicas: Duplicate value: "object"']);
    expect(validateCustomResourceRules(obj, schema("FieldValueForbidden"))[0]?.type).toBe("FieldValueForbidden");
  });
});

describe("TestMessageExpression", () => {
  const schema = (messageExpression: string) =>
    specWithRules([{ rule: "self.replicas > 0", message: "fallback", messageExpression }], {
      replicas: { type: "integer" },
    });
  const obj = { spec: { replicas: 0 } };
  it("the result is trimmed; an empty, multi-line, over 5 KiB or failing result falls back to message", () => {
    expect(v(schema("'  got ' + string(self.replicas) + '  '"), obj)).toEqual(['spec: Invalid value: "object": got 0']);
    expect(v(schema("'   '"), obj)).toEqual(['spec: Invalid value: "object": fallback']);
    expect(v(schema("'a\\nb'"), obj)).toEqual(['spec: Invalid value: "object": fallback']);
    expect(v(schema(`'${"x".repeat(5121)}'`), obj)).toEqual(['spec: Invalid value: "object": fallback']);
    expect(v(schema("self.missing"), obj)).toEqual(['spec: Invalid value: "object": fallback']);
  });
});

describe("TestRatcheting (CRDValidationRatcheting, GA since 1.30)", () => {
  const schema: StructuralSchema = {
    type: "object",
    properties: {
      spec: {
        type: "object",
        properties: {
          name: { type: "string", "x-kubernetes-validations": [{ rule: "self.startsWith('w')" }] },
          other: { type: "integer" },
          ports: {
            type: "array",
            "x-kubernetes-list-type": "map",
            "x-kubernetes-list-map-keys": ["name"],
            items: {
              type: "object",
              properties: { name: { type: "string" }, port: { type: "integer" } },
              "x-kubernetes-validations": [
                { rule: "self.port < 1000" },
                { rule: "self.port >= oldSelf.port", message: "port may not decrease" },
              ],
            },
          },
          tags: {
            type: "array",
            items: { type: "string", "x-kubernetes-validations": [{ rule: "self != 'bad'" }] },
          },
        },
      },
    } as Record<string, StructuralSchema>,
  };
  const ratchet = (obj: unknown, old?: unknown) => {
    const warnings: string[] = [];
    const errs = validateCustomResourceRules(obj, schema, old, warnings).map(fieldErrorString);
    return { errs, warnings };
  };
  const stored = { spec: { name: "api", other: 1, ports: [{ name: "a", port: 2000 }], tags: ["bad"] } };

  it("an unchanged invalid field is a warning on update, an error on create", () => {
    const failures = [
      "spec.name: Invalid value: \"string\": failed rule: self.startsWith('w')",
      'spec.ports[0]: Invalid value: "object": failed rule: self.port < 1000',
      "spec.tags[0]: Invalid value: \"string\": failed rule: self != 'bad'",
    ];
    expect(ratchet(stored).errs).toEqual(failures);
    const r = ratchet({ spec: { ...stored.spec, other: 2 } }, stored);
    expect(r.errs).toEqual([]);
    expect(r.warnings).toEqual(failures);
  });

  it("a changed field is validated; map-list items correlate by key, atomic-list items through their list", () => {
    const r = ratchet(
      { spec: { ...stored.spec, name: "still-bad", ports: [{ name: "b", port: 3000 }, ...stored.spec.ports] } },
      stored,
    );
    expect(r.errs).toEqual([
      "spec.name: Invalid value: \"string\": failed rule: self.startsWith('w')",
      'spec.ports[0]: Invalid value: "object": failed rule: self.port < 1000',
    ]);
    expect(r.warnings).toEqual([
      'spec.ports[1]: Invalid value: "object": failed rule: self.port < 1000',
      "spec.tags[0]: Invalid value: \"string\": failed rule: self != 'bad'",
    ]);
    // A changed atomic list is not correlated item by item: its unchanged 'bad' is an error again.
    expect(ratchet({ spec: { ...stored.spec, tags: ["bad", "ok"] } }, stored).errs).toEqual([
      "spec.tags[0]: Invalid value: \"string\": failed rule: self != 'bad'",
    ]);
  });

  it("transition rules never ratchet, and map-list items get oldSelf from the item with the same key", () => {
    const r = ratchet({ spec: { ...stored.spec, ports: [{ name: "a", port: 1500 }] } }, stored);
    expect(r.errs).toEqual([
      'spec.ports[0]: Invalid value: "object": failed rule: self.port < 1000',
      'spec.ports[0]: Invalid value: "object": port may not decrease',
    ]);
  });
});

describe("CRD write: estimated cost (apiextensions validation.go, StaticEstimatedCostLimit / StaticEstimatedCRDCostLimit)", () => {
  const tags = (bounds: { maxItems?: number; maxLength?: number }) =>
    specSchema({
      tags: withValidations(
        {
          type: "array",
          ...(bounds.maxItems === undefined ? {} : { maxItems: bounds.maxItems }),
          items: { type: "string", ...(bounds.maxLength === undefined ? {} : { maxLength: bounds.maxLength }) },
        },
        [{ rule: "self.all(x, x.contains('gpu'))" }],
      ),
    });
  const rule = `${ROOT}.properties[spec].properties[tags].x-kubernetes-validations[0].rule`;

  it("a rule over an unbounded list of unbounded strings is Forbidden, and so is the schema's total", () => {
    expect(atCrd(tags({}))).toEqual([
      `${rule}: Forbidden: estimated rule cost exceeds budget by factor of more than 100x ${HINT}`,
      `${rule}: Forbidden: contributed to estimated rule cost total exceeding cost limit for entire OpenAPIv3 schema`,
      `${ROOT}: Forbidden: x-kubernetes-validations estimated rule cost total for entire OpenAPIv3 schema exceeds budget by factor of more than 100x ${HINT}`,
    ]);
  });

  it("maxItems and maxLength make the same rule admissible", () => {
    expect(atCrd(tags({ maxItems: 100, maxLength: 64 }))).toEqual([]);
    // Only one bound is not enough: 100 strings of 3 MiB, or 1M strings of 64 characters.
    expect(atCrd(tags({ maxItems: 100 }))).toHaveLength(1);
    expect(atCrd(tags({ maxLength: 64 }))).toHaveLength(1);
  });

  it("the factor is printed with one decimal below 100x (an O(n^2) rule over 3266 items)", () => {
    const schema = {
      type: "array",
      maxItems: 3266,
      items: { type: "number" },
      "x-kubernetes-validations": [{ rule: "self.all(x, self.all(y, true))" }],
    };
    expect(atCrd(schema)).toEqual([
      `${ROOT}.x-kubernetes-validations[0].rule: Forbidden: estimated rule cost exceeds budget by factor of 3.2x ${HINT}`,
    ]);
  });

  it("a rule's cost is multiplied by how often its node can occur (maxItems of the lists above it)", () => {
    const nested = (maxItems: number) => ({
      type: "array",
      maxItems,
      items: {
        type: "string",
        maxLength: 1024,
        "x-kubernetes-validations": [{ rule: "self.contains('gpu')" }],
      },
    });
    // self.contains('gpu') costs 1 + ceil(4096 * 0.1) = 411: 24330 of them fit in 10,000,000, 24331 do not.
    expect(atCrd(nested(24_330))).toEqual([]);
    expect(atCrd(nested(24_331))).toEqual([
      `${ROOT}.items.x-kubernetes-validations[0].rule: Forbidden: estimated rule cost exceeds budget by factor of 1.000004x ${HINT}`,
    ]);
  });

  it("a messageExpression is costed too", () => {
    const schema = {
      type: "array",
      items: { type: "string" },
      "x-kubernetes-validations": [
        { rule: "size(self) < 5", messageExpression: "'bad: ' + self.map(x, x + '!').join(',')" },
      ],
    };
    expect(atCrd(schema)[0]).toBe(
      `${ROOT}.x-kubernetes-validations[0].messageExpression: Forbidden: estimated messageExpression cost exceeds budget by factor of more than 100x ${HINT}`,
    );
  });

  it("the total over all rules: per-rule limit, the four most expensive contributors, the total (cost total exceeds total limit)", () => {
    // The case's schema: an unbounded list of long strings (over the per-rule limit), a bounded map (within it, but
    // over 1% of the total), and a cheap integer rule that does not count as a contributor.
    const schema = {
      type: "object",
      properties: {
        array: {
          type: "array",
          items: {
            type: "string",
            maxLength: 500_000,
            "x-kubernetes-validations": [{ rule: "self.contains('keyword')" }],
          },
        },
        map: {
          type: "object",
          maxProperties: 10_000,
          additionalProperties: {
            type: "string",
            maxLength: 2048,
            "x-kubernetes-validations": [{ rule: "self.contains('keyword')" }],
          },
        },
        field: { type: "integer", "x-kubernetes-validations": [{ rule: "self > 50 && self < 100" }] },
      },
    };
    const arrayRule = `${ROOT}.properties[array].items.x-kubernetes-validations[0].rule`;
    expect(validateSchemaRules(schema, ROOT).map((e) => [e.type, e.field])).toEqual([
      ["FieldValueForbidden", arrayRule],
      ["FieldValueForbidden", arrayRule],
      ["FieldValueForbidden", `${ROOT}.properties[map].additionalProperties.x-kubernetes-validations[0].rule`],
      ["FieldValueForbidden", ROOT],
    ]);
  });
});

describe("CRD write: type-checking against the schema (TestCelCompilation)", () => {
  const spec = (rules: ValidationRule[]) =>
    specWithRules(rules, {
      replicas: { type: "integer" },
      ratio: { type: "number" },
      name: { type: "string" },
      items: { type: "array", items: { type: "object", properties: { port: { type: "integer" } } } },
      labels: { type: "object", additionalProperties: { type: "string" } },
      any: { "x-kubernetes-int-or-string": true },
    });
  const at = `${ROOT}.properties[spec].x-kubernetes-validations`;
  const printed = (rule: string) =>
    `apiextensions.ValidationRule{Rule:${JSON.stringify(rule)}, Message:"", MessageExpression:"", Reason:(*apiextensions.FieldValueErrorReason)(nil), FieldPath:"", OptionalOldSelf:(*bool)(nil)}`;

  it("valid rules over fields, list items, map values and int-or-string compile", () => {
    const rules = [
      "self.replicas >= 0 && self.ratio < 1.5",
      "self.items.all(i, i.port > 1024)",
      "self.labels.all(k, self.labels[k] != '')",
      "has(self.name) && self.name.startsWith('w')",
      "self.any == 1 || self.any == 'x'",
      "self.replicas >= oldSelf.replicas",
      "quantity('1').isLessThan(quantity('2'))",
    ].map((rule) => ({ rule }));
    expect(atCrd(spec(rules))).toEqual([]);
  });

  it("an undefined field is a compile error naming it, with cel-go's position and caret", () => {
    expect(atCrd(spec([{ rule: "self.replica > 1" }]))).toEqual([
      `${at}[0].rule: Invalid value: ${printed("self.replica > 1")}: compilation failed: ERROR: <input>:1:5: undefined field 'replica'\n | self.replica > 1\n | ....^`,
    ]);
    expect(atCrd(spec([{ rule: "self.items.all(i, i.prot > 0)" }]))[0]).toContain(
      "ERROR: <input>:1:20: undefined field 'prot'",
    );
  });

  it("a type mismatch is a compile error naming the overload", () => {
    expect(atCrd(spec([{ rule: 'self.replicas == "x"' }]))).toEqual([
      `${at}[0].rule: Invalid value: ${printed('self.replicas == "x"')}: compilation failed: ERROR: <input>:1:15: found no matching overload for '_==_' applied to '(int, string)'\n | self.replicas == "x"\n | ..............^`,
    ]);
    expect(atCrd(spec([{ rule: "self.items == 'x' || self.replicas == null" }]))[0]).toContain(
      "found no matching overload for '_==_' applied to '(list(object), string)'",
    );
    // "invalid checking for number": size() of a number.
    expect(atCrd(spec([{ rule: "size(self.ratio) == 10" }]))[0]).toContain(
      "compilation failed: ERROR: <input>:1:5: found no matching overload for 'size' applied to '(double)'",
    );
  });

  it("a messageExpression is type-checked too", () => {
    expect(atCrd(spec([{ rule: "true", messageExpression: "self.nme" }]))[0]).toContain(
      `${at}[0].messageExpression: Invalid value: `,
    );
    expect(atCrd(spec([{ rule: "true", messageExpression: "self.nme" }]))[0]).toContain(
      "messageExpression compilation failed: ERROR: <input>:1:5: undefined field 'nme'",
    );
  });

  it("a function or variable nobody declares is cel-go's undeclared reference, at the call's parenthesis", () => {
    expect(atCrd(spec([{ rule: "self.replicas > foo(1)" }]))).toEqual([
      `${at}[0].rule: Invalid value: ${printed("self.replicas > foo(1)")}: compilation failed: ERROR: <input>:1:20: undeclared reference to 'foo' (in container '')\n | self.replicas > foo(1)\n | ...................^`,
    ]);
    expect(atCrd(spec([{ rule: "self.name.bogus()" }]))[0]).toContain(
      "compilation failed: ERROR: <input>:1:16: undeclared reference to 'bogus' (in container '')",
    );
    expect(atCrd(spec([{ rule: "nope > 1" }]))[0]).toContain(
      "compilation failed: ERROR: <input>:1:1: undeclared reference to 'nope' (in container '')",
    );
  });

  it("cel.bind is refused: ext.Bindings is in no release's base environment, so cel-go reports its names undeclared", () => {
    const rule = "cel.bind(r, self.replicas, r > 0 && r < 10)";
    const line = ` | ${rule}`;
    expect(atCrd(spec([{ rule }]))).toEqual([
      `${at}[0].rule: Invalid value: ${printed(rule)}: compilation failed: ` +
        [
          `ERROR: <input>:1:1: undeclared reference to 'cel' (in container '')\n${line}\n | ^`,
          `ERROR: <input>:1:9: undeclared reference to 'bind' (in container '')\n${line}\n | ........^`,
          `ERROR: <input>:1:10: undeclared reference to 'r' (in container '')\n${line}\n | .........^`,
          `ERROR: <input>:1:28: undeclared reference to 'r' (in container '')\n${line}\n | ...........................^`,
          `ERROR: <input>:1:37: undeclared reference to 'r' (in container '')\n${line}\n | ....................................^`,
        ].join("\n"),
    ]);
    // In a messageExpression too; a string that only mentions it is no call.
    expect(atCrd(spec([{ rule: "true", messageExpression: "cel.bind(m, 'x', m)" }]))[0]).toContain(
      "messageExpression compilation failed: ERROR: <input>:1:1: undeclared reference to 'cel' (in container '')",
    );
    expect(atCrd(spec([{ rule: "self.name != 'cel.bind(a, 1, a)'" }]))).toEqual([]);
  });

  it("Kubernetes' CEL libraries type-check, with upstream's type names in overload errors", () => {
    const ok = [
      "url(self.name).getHost() != '' && isURL(self.name)",
      "ip(self.name).family() == 4 && ip.isCanonical(self.name) && string(ip(self.name)) != ''",
      "cidr(self.name).containsIP(self.name) && cidr(self.name).masked() == cidr(self.name)",
      "self.name.find('[a-z]+') != '' && self.name.findAll('x', 2).size() < 3",
      "!format.dns1123Label().validate(self.name).hasValue()",
      "format.named('dns1123Label').value().validate(self.name).orValue([]).size() == 0",
      "isQuantity(self.name) && quantity(self.name).isLessThan(quantity('1Gi'))",
      "quantity(self.name).add(1).compareTo(quantity('2')) == 0",
      "isSemver(self.name, true) && semver(self.name, true).isGreaterThan(semver('1.0.0'))",
      "semver(self.name).major() == 1 && semver(self.name).compareTo(semver('1.2.3')) < 0",
      "self.name.charAt(0) == 'a' && strings.quote(self.name) != '' && self.name.replace('a', 'b') != ''",
      "self.items.map(i, i.port).sum() > 0 && self.items.map(i, i.port).isSorted()",
      "sets.contains(self.items.map(i, i.port), [443]) && !sets.intersects([1], [2])",
    ].map((rule) => ({ rule }));
    // They compile (some are over the cost limit, `name` having no maxLength: costed as upstream's cost.go does).
    expect(atCrd(spec(ok)).filter((e) => e.includes("compilation failed"))).toEqual([]);
    // Each rule fails to compile with its overload error.
    const noOverload: Array<[rule: string, message: string]> = [
      [
        "quantity(self.replicas).isInteger()",
        "compilation failed: ERROR: <input>:1:9: found no matching overload for 'quantity' applied to '(int)'",
      ],
      [
        "quantity(self.name).add('x') == quantity('1')",
        "found no matching overload for 'add' applied to 'kubernetes.Quantity.(string)'",
      ],
      // quantity_test.go's "isQuantity_noOverload".
      ["isQuantity([1, 2, 3])", "found no matching overload for 'isQuantity' applied to '(list(int))'"],
      // semver_test.go's "isSemver_noOverload".
      ["isSemver([1, 2, 3])", "found no matching overload for 'isSemver' applied to '(list(int))'"],
      [
        "semver(self.name).isLessThan(quantity('1'))",
        "found no matching overload for 'isLessThan' applied to 'kubernetes.Semver.(kubernetes.Quantity)'",
      ],
      // cidr_test.go's "compilation error for cidr(int)".
      ["cidr(192168).prefixLength() > 0", "found no matching overload for 'cidr' applied to '(int)'"],
      // ip_test.go's "passing cidr into isIP returns compile error".
      ["isIP(cidr(self.name))", "found no matching overload for 'isIP' applied to '(net.CIDR)'"],
      ["ip(self.name) == cidr(self.name)", "found no matching overload for '_==_' applied to '(net.IP, net.CIDR)'"],
    ];
    for (const [rule, message] of noOverload) expect(atCrd(spec([{ rule }]))[0], rule).toContain(message);
  });

  it("the root object has apiVersion, kind and metadata.name", () => {
    const root = {
      type: "object",
      properties: { spec: { type: "object" } },
      "x-kubernetes-validations": [{ rule: "self.metadata.name.startsWith('a') && self.kind == 'W'" }],
    };
    expect(atCrd(root)).toEqual([]);
  });
});

describe("runtime cost (PerCallLimit, RuntimeCELCostBudget)", () => {
  const listSchema = (rules: ValidationRule[]) =>
    specWithRules(rules, {
      tags: { type: "array", items: { type: "string" } },
      n: { type: "integer" },
    });

  it("an evaluation over the per-call limit is not run and stops validation with upstream's message", () => {
    // 2,000 tags of 1,000 characters: x.contains(...) on each costs 101, times the list squared (exists inside all).
    const tag = "a".repeat(1000);
    const schema = listSchema([
      { rule: "self.tags.all(x, self.tags.exists(y, y.contains(x)))", message: "tags must overlap" },
      { rule: "self.n > 0" },
    ]);
    expect(v(schema, { spec: { tags: Array(2000).fill(tag), n: 0 } })).toEqual([
      "spec: Invalid value: \"object\": 'operation cancelled: actual cost limit exceeded': no further validation rules will be run due to call cost exceeds limit for rule: tags must overlap",
    ]);
    // The same object with few tags is evaluated: the second rule fails normally.
    expect(v(schema, { spec: { tags: ["a"], n: 0 } })).toEqual([
      'spec: Invalid value: "object": failed rule: self.n > 0',
    ]);
  });

  it("evaluations that together overdraw the per-request budget stop validation", () => {
    // Each item's rule costs about 900,000 (within the per-call limit); twelve of them exceed 10,000,000.
    const schema: StructuralSchema = {
      type: "object",
      properties: {
        items: {
          type: "array",
          items: {
            type: "object",
            properties: { tags: { type: "array", items: { type: "string" } } },
            "x-kubernetes-validations": [{ rule: "self.tags.all(x, x.contains('a'))" }],
          } as StructuralSchema,
        },
      },
    };
    const item = { tags: Array(900).fill("a".repeat(9990)) };
    const errs = v(schema, { items: Array(12).fill(item) });
    expect(errs).toEqual([
      'items[11]: Invalid value: "object": validation failed due to running out of cost budget, no further validation rules will be run',
    ]);
    expect(v(schema, { items: Array(11).fill(item) })).toEqual([]);
  });

  it("property: for any list size a quadratic rule either holds or is refused for its cost, and is never run past the limit", () => {
    const schema = listSchema([{ rule: "self.tags.all(x, self.tags.all(y, x == y || x != y))" }]);
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 3000 }), (n) => {
        const errs = v(schema, { spec: { tags: Array(n).fill("t") } });
        const perCall = CEL_COST_LIMITS.perCallLimit;
        // cost ~ n^2 * 6: within the limit the rule holds; beyond it the evaluation is refused.
        if (n * n * 6 < perCall * 0.9) expect(errs).toEqual([]);
        if (n * n * 6 > perCall * 1.1)
          expect(errs).toEqual([expect.stringContaining("call cost exceeds limit for rule")]);
      }),
      { numRuns: 40 },
    );
  });
});
