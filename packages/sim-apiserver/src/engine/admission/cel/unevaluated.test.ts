// Rules Kubernetes 1.34 accepts that the simulator cannot evaluate (unevaluated.ts): accepted at CRD write with
// a Warning and a log line (once), not enforced on custom-resource writes; an unknown function is still rejected.
// And the semver library enforced through the engine.
import type { KubeObject } from "@informer-ts/apimachinery";
import { FakeClock, seededRand } from "@informer-ts/clock";
import { describe, expect, it } from "vitest";
import type { KubeVersion } from "../../kube-version.js";
import type { RequestContext } from "../../request-context.js";
import { crdWithSpec } from "../../resources.test-util.js";
import { SimApiServer } from "../../sim-apiserver.js";
import { failure } from "../../status-failure.test-util.js";
import { unavailableCall, undeclaredCall, unevaluatedFeatures } from "./unevaluated.js";

const CRDS = "customresourcedefinitions.apiextensions.k8s.io";

function engine(logs: string[] = [], kubeVersion?: KubeVersion) {
  return new SimApiServer({
    ...(kubeVersion !== undefined && { kubeVersion }),
    clock: new FakeClock(),
    rand: seededRand(4),
    compactionIntervalMs: 0,
    progressNotifyIntervalMs: 0,
    logger: { log: (_level, line) => logs.push(line) },
  });
}

/** A `Widget` definition whose `spec` (a `version` string, `tags` map of ints) carries `rules`. */
function widgets(rules: unknown[]): KubeObject {
  return crdWithSpec("example.com", "widgets", "Widget", {
    type: "object",
    properties: {
      version: { type: "string", maxLength: 64 },
      tags: { type: "object", maxProperties: 8, additionalProperties: { type: "integer" } },
    },
    "x-kubernetes-validations": rules,
  });
}

const widget = (spec: Record<string, unknown>): KubeObject => ({
  apiVersion: "example.com/v1",
  kind: "Widget",
  metadata: { name: "w" },
  spec,
});

const AT = "spec.versions[0].schema.openAPIV3Schema.properties[spec].x-kubernetes-validations";

describe("a semver rule through the engine", () => {
  it("is enforced on custom-resource creates and updates", async () => {
    const e = engine();
    const ctx: RequestContext = { warnings: [] };
    await e.create(
      CRDS,
      "",
      widgets([
        {
          rule: "isSemver(self.version, true) && semver(self.version, true).isGreaterThan(semver('1.2.0'))",
          message: "version must be a semantic version above 1.2.0",
        },
      ]),
      ctx,
    );
    expect(ctx.warnings).toEqual([]);
    const bad = await failure(e.create("widgets.example.com", "default", widget({ version: "v1.1" })));
    expect([bad.code, bad.message]).toEqual([
      422,
      'Widget.example.com "w" is invalid: spec: Invalid value: "object": version must be a semantic version above 1.2.0',
    ]);
    expect((await failure(e.create("widgets.example.com", "default", widget({ version: "one" })))).code).toBe(422);
    await e.create("widgets.example.com", "default", widget({ version: "v1.3" }));
    const down = await failure(e.update("widgets.example.com", "default", "w", widget({ version: "1.2.0-rc.1" })));
    expect(down.code).toBe(422);
  });
});

describe("rules upstream declares that the simulator cannot evaluate", () => {
  const rule = "self.tags.all(k, v, v > 0)";

  it("are accepted at CRD create and update with a Warning naming the rule, logged once", async () => {
    const logs: string[] = [];
    const e = engine(logs);
    const ctx: RequestContext = { warnings: [] };
    const stored = await e.create(CRDS, "", widgets([{ rule }, { rule: "size(self.tags) <= 4" }]), ctx);
    const warning = `${AT}[0].rule: ${JSON.stringify(rule)} uses the two-variable comprehension 'all', which the simulator cannot evaluate: the rule is not enforced on custom resources`;
    expect(ctx.warnings).toEqual([warning]);
    const again: RequestContext = { warnings: [] };
    await e.update(CRDS, "", "widgets.example.com", stored, again);
    expect(again.warnings).toEqual([warning]);
    expect(logs.filter((l) => l.includes("cannot evaluate"))).toEqual([
      `CustomResourceDefinition widgets.example.com: ${warning}`,
    ]);
  });

  it("a definition seeded at startup logs the warning once too, shared with later writes over the API", async () => {
    const logs: string[] = [];
    const e = engine(logs);
    const seeded = e.seedDefinition(widgets([{ rule }]));
    const warning = `${AT}[0].rule: ${JSON.stringify(rule)} uses the two-variable comprehension 'all', which the simulator cannot evaluate: the rule is not enforced on custom resources`;
    expect(logs.filter((l) => l.includes("cannot evaluate"))).toEqual([
      `CustomResourceDefinition widgets.example.com: ${warning}`,
    ]);
    const ctx: RequestContext = { warnings: [] };
    await e.update(CRDS, "", "widgets.example.com", seeded, ctx);
    expect(ctx.warnings).toEqual([warning]);
    expect(logs.filter((l) => l.includes("cannot evaluate"))).toHaveLength(1);
  });

  it("are not enforced on custom-resource writes, while the definition's other rules are", async () => {
    const e = engine();
    await e.create(CRDS, "", widgets([{ rule }, { rule: "size(self.tags) <= 2", message: "at most 2 tags" }]));
    // The two-variable rule would reject a negative tag upstream; here it is not evaluated.
    await e.create("widgets.example.com", "default", widget({ tags: { a: -1 } }));
    const many = await failure(e.update("widgets.example.com", "default", "w", widget({ tags: { a: 1, b: 2, c: 3 } })));
    expect(many.message).toBe('Widget.example.com "w" is invalid: spec: Invalid value: "object": at most 2 tags');
  });

  it("a function nobody declares is still rejected, also next to such a construct", async () => {
    const e = engine();
    const err = await failure(e.create(CRDS, "", widgets([{ rule: "self.tags.all(k, v, bogus(v))" }])));
    expect(err.code).toBe(422);
    expect(err.message).toContain(
      `${AT}[0].rule: Invalid value: apiextensions.ValidationRule{Rule:"self.tags.all(k, v, bogus(v))"`,
    );
    expect(err.message).toContain(
      "compilation failed: ERROR: <input>:1:26: undeclared reference to 'bogus' (in container '')",
    );
    const plain = await failure(e.create(CRDS, "", widgets([{ rule: "bogus(self.version)" }])));
    expect(plain.message).toContain("undeclared reference to 'bogus' (in container '')");
  });
});

describe("unevaluatedFeatures / undeclaredCall", () => {
  it.each([
    ["self.m.exists(k, v, v == 1)", ["the two-variable comprehension 'exists'"]],
    ["self.m.existsOne(k, v, v == 1)", ["the two-variable comprehension 'existsOne'"]],
    ["self.m.transformMap(k, v, v + 1) == {}", ["the two-variable comprehension 'transformMap'"]],
    ["self.l.transformMapEntry(i, v, {v: i}) == {}", ["the two-variable comprehension 'transformMapEntry'"]],
    [
      "lists.range(3).distinct().size() == 3",
      ["the lists-extension function 'distinct'", "the lists-extension function 'lists.range'"],
    ],
    ["self.l.first().hasValue()", ["the lists-extension function 'first'"]],
    [
      "self.?a.orValue(1) > 0 && optional.none() == optional.none()",
      ["the optional-types function 'optional.none'", "the optional-types selection '.?'"],
    ],
    [
      "self.m[?'k'].or(optional.of(1)).value() > 0",
      [
        "the optional-types function 'optional.of'",
        "the optional-types function 'or'",
        "the optional-types entry or index '[?…]'",
      ],
    ],
    ["self.l.all(x, x > 0) && self.l.exists(x, x == 1) && self.m.map(k, k).size() > 0", []],
    ["'a.reverse() .all(k, v, x)' == r'b.sort()' && \"\"\"x.?y\"\"\" != ''", []],
    ["format.named('x').orValue(format.dns1123Label()).validate('a').hasValue()", []],
  ])("%s uses %j", (expr, want) => {
    expect(unevaluatedFeatures(expr)).toEqual(want);
  });

  it("undeclaredCall allows declared functions, macros and the gaps' own names, and points at the first other call", () => {
    expect(undeclaredCall("self.m.all(k, v, v.startsWith('x') && size(v) > 0 && has(self.a))")).toBeUndefined();
    expect(undeclaredCall("lists.range(2).sort().reverse() == [1, 0]")).toBeUndefined();
    expect(undeclaredCall("self.m.all(k, v, 'nope(' != k) && nope(v)")).toBe(
      `ERROR: <input>:1:39: undeclared reference to 'nope' (in container '')\n | self.m.all(k, v, 'nope(' != k) && nope(v)\n | ${".".repeat(38)}^`,
    );
  });
});

describe("new expressions get the environment of DefaultCompatibilityVersion (the server's release minus one)", () => {
  it("unavailableCall names the first call of what a later release brought, as cel-go's undeclared reference", () => {
    expect(unavailableCall("lists.range(3).distinct().size() == 3", 33)).toBe(
      "ERROR: <input>:1:1: undeclared reference to 'lists' (in container '')\n | lists.range(3).distinct().size() == 3\n | ^",
    );
    expect(unavailableCall("self.l.sortBy(x, x).size() > 0", 33)).toBe(
      "ERROR: <input>:1:14: undeclared reference to 'sortBy' (in container '')\n | self.l.sortBy(x, x).size() > 0\n | .............^",
    );
    expect(unavailableCall("self.l.sortBy(x, x).size() > 0", 34)).toBeUndefined();
    expect(unavailableCall("self.m.all(k, v, v > 0)", 32)).toBeUndefined();
    expect(unavailableCall("self.m.all(k, v, v > 0)", 31)).toContain(
      "ERROR: <input>:1:11: undeclared reference to 'all' (in container '')",
    );
    expect(unavailableCall("optional.of(1).hasValue()", 27)).toContain("undeclared reference to 'optional'");
  });

  it("kube-apiserver 1.34 refuses the lists extension (introduced in 1.34) in a new rule; 1.31 two-variable comprehensions", async () => {
    const distinct = "self.version.split('.').distinct().size() > 0";
    const refused = await failure(engine().create(CRDS, "", widgets([{ rule: distinct }])));
    expect(refused.code).toBe(422);
    expect(refused.message).toContain(
      "compilation failed: ERROR: <input>:1:33: undeclared reference to 'distinct' (in container '')",
    );
    const twoVar = "self.tags.all(k, v, v > 0)";
    await engine([], "1.33").create(CRDS, "", widgets([{ rule: twoVar }]));
    const old = await failure(engine([], "1.31").create(CRDS, "", widgets([{ rule: twoVar }])));
    expect(old.message).toContain(
      "compilation failed: ERROR: <input>:1:14: undeclared reference to 'all' (in container '')",
    );
    // Seeding compiles for the same release.
    expect(() => engine([], "1.31").seedDefinition(widgets([{ rule: twoVar }]))).toThrow(
      "undeclared reference to 'all' (in container '')",
    );
  });
});
