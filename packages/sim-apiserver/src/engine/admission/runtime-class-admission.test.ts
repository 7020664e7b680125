// The RuntimeClass admission plugin: tables from plugin/pkg/admission/runtimeclass/admission_test.go
// (`TestSetOverhead`, `TestSetScheduling`, `TestValidateOverhead`, `TestRuntimeClassAdmission`), pkg/util/tolerations'
// `TestMergeTolerations`, and the plugin through the engine.
import type { KubeObject } from "@informer-ts/apimachinery";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { failure } from "../status-failure.test-util.js";
import { pluginEngine } from "./plugin-engine.test-util.js";
import {
  admitRuntimeClass,
  isSuperset,
  mergeTolerations,
  RuntimeClassRejection,
  runtimeClassViolation,
} from "./runtime-class-admission.js";

const rc = (name: string, extra: Record<string, unknown> = {}): KubeObject =>
  ({ metadata: { name }, handler: "h", ...extra }) as KubeObject;
const pod = (spec: Record<string, unknown> = {}): KubeObject => ({
  metadata: { name: "p", namespace: "default" },
  spec: { runtimeClassName: "foo", containers: [{ name: "c", image: "i" }], ...spec },
});
const lookupOf =
  (...classes: KubeObject[]) =>
  (name: string) =>
    classes.find((c) => c.metadata?.name === name);
const specOf = (p: KubeObject) => p.spec as Record<string, unknown>;

function rejection(f: () => void): string {
  try {
    f();
  } catch (err) {
    if (err instanceof RuntimeClassRejection) return err.message;
    throw err;
  }
  throw new Error("expected a rejection");
}

describe("RuntimeClass: TestSetOverhead", () => {
  const overhead = { overhead: { podFixed: { cpu: "100", memory: "100Mi" } } };
  it("overhead, no pod overhead: the class's is set", () => {
    const p = pod();
    admitRuntimeClass(p, lookupOf(rc("foo", overhead)));
    expect(specOf(p).overhead).toEqual({ cpu: "100", memory: "100Mi" });
  });
  it("overhead, matching pod overhead (by value): admitted", () => {
    const p = pod({ overhead: { cpu: "100", memory: "102400Ki" } });
    admitRuntimeClass(p, lookupOf(rc("foo", overhead)));
    expect(specOf(p).overhead).toEqual({ cpu: "100", memory: "100Mi" });
  });
  it("overhead, differing pod overhead: refused", () => {
    expect(rejection(() => admitRuntimeClass(pod({ overhead: { cpu: "10" } }), lookupOf(rc("foo", overhead))))).toBe(
      "pod rejected: Pod's Overhead doesn't match RuntimeClass's defined Overhead",
    );
  });
  it("no overhead in the class: the pod is unchanged", () => {
    const p = pod();
    admitRuntimeClass(p, lookupOf(rc("foo")));
    expect(specOf(p).overhead).toBeUndefined();
  });
});

describe("RuntimeClass: TestSetScheduling", () => {
  const tolerations = [{ key: "foo", operator: "Equal", value: "bar", effect: "NoSchedule" }];
  const scheduling = { scheduling: { nodeSelector: { foo: "bar" }, tolerations } };
  it("nodeSelector and tolerations are set on a pod without them", () => {
    const p = pod();
    admitRuntimeClass(p, lookupOf(rc("foo", scheduling)));
    expect(specOf(p).nodeSelector).toEqual({ foo: "bar" });
    expect(specOf(p).tolerations).toEqual(tolerations);
  });
  it("nodeSelectors are merged", () => {
    const p = pod({ nodeSelector: { baz: "qux" } });
    admitRuntimeClass(p, lookupOf(rc("foo", scheduling)));
    expect(specOf(p).nodeSelector).toEqual({ baz: "qux", foo: "bar" });
  });
  it("a conflicting nodeSelector is refused", () => {
    expect(
      rejection(() => admitRuntimeClass(pod({ nodeSelector: { foo: "other" } }), lookupOf(rc("foo", scheduling)))),
    ).toBe("conflict: runtimeClass.scheduling.nodeSelector[foo] = bar; pod.spec.nodeSelector[foo] = other");
  });
  it("tolerations are merged without duplicates", () => {
    const own = { key: "a", operator: "Exists", effect: "NoExecute" };
    const p = pod({ tolerations: [own, ...tolerations] });
    admitRuntimeClass(p, lookupOf(rc("foo", scheduling)));
    expect(specOf(p).tolerations).toEqual([own, ...tolerations]);
  });
});

describe("RuntimeClass: TestValidateOverhead and a missing class", () => {
  it("a pod naming no existing RuntimeClass is refused", () => {
    expect(rejection(() => admitRuntimeClass(pod(), lookupOf()))).toBe('pod rejected: RuntimeClass "foo" not found');
    expect(runtimeClassViolation(pod(), lookupOf())).toBe('pod rejected: RuntimeClass "foo" not found');
  });
  it("a pod without runtimeClassName is left alone", () => {
    const p = pod({ runtimeClassName: undefined });
    admitRuntimeClass(p, lookupOf());
    expect(runtimeClassViolation(p, lookupOf())).toBeUndefined();
  });
  it("overhead set without a class that defines one is refused", () => {
    expect(runtimeClassViolation(pod({ overhead: { cpu: "1" } }), lookupOf(rc("foo")))).toBe(
      "pod rejected: Pod Overhead set without corresponding RuntimeClass defined Overhead",
    );
  });
  it("overhead that differs from the class's is refused; equal passes", () => {
    const cls = rc("foo", { overhead: { podFixed: { cpu: "1" } } });
    expect(runtimeClassViolation(pod({ overhead: { cpu: "2" } }), lookupOf(cls))).toBe(
      "pod rejected: Pod's Overhead doesn't match RuntimeClass's defined Overhead",
    );
    expect(runtimeClassViolation(pod({ overhead: { cpu: "1000m" } }), lookupOf(cls))).toBeUndefined();
  });
});

describe("TestMergeTolerations (pkg/util/tolerations)", () => {
  const t = (key: string, operator: string, effect: string, value?: string, seconds?: number) => ({
    key,
    operator,
    effect,
    ...(value !== undefined && { value }),
    ...(seconds !== undefined && { tolerationSeconds: seconds }),
  });
  it.each([
    [
      "disjoint",
      [t("a", "Exists", "NoSchedule")],
      [t("b", "Exists", "NoSchedule")],
      [t("a", "Exists", "NoSchedule"), t("b", "Exists", "NoSchedule")],
    ],
    ["duplicate", [t("a", "Exists", "NoSchedule")], [t("a", "Exists", "NoSchedule")], [t("a", "Exists", "NoSchedule")]],
    ["second covers first", [t("a", "Equal", "NoSchedule", "v")], [t("a", "Exists", "")], [t("a", "Exists", "")]],
    ["first covers second", [t("", "Exists", "")], [t("a", "Equal", "NoSchedule", "v")], [t("", "Exists", "")]],
    [
      "the shorter NoExecute tolerationSeconds is covered",
      [t("a", "Exists", "NoExecute", undefined, 100)],
      [t("a", "Exists", "NoExecute", undefined, 300)],
      [t("a", "Exists", "NoExecute", undefined, 300)],
    ],
  ])("%s", (_name, first, second, want) => {
    expect(mergeTolerations(first, second)).toEqual(want);
  });
});

describe("MergeTolerations: property", () => {
  const toleration = fc.record(
    {
      key: fc.constantFrom("", "a", "b"),
      operator: fc.constantFrom("Equal", "Exists"),
      value: fc.constantFrom("", "x"),
      effect: fc.constantFrom("", "NoSchedule", "NoExecute"),
      tolerationSeconds: fc.constantFrom(60, 300),
    },
    { requiredKeys: ["key", "operator", "effect"] },
  );
  const covered = (list: readonly object[], t: object) => list.some((m) => isSuperset(m, t));

  it("never loses what either list tolerates, and merging again changes nothing", () => {
    fc.assert(
      fc.property(fc.array(toleration, { maxLength: 4 }), fc.array(toleration, { maxLength: 4 }), (a, b) => {
        const merged = mergeTolerations(a, b);
        for (const t of [...a, ...b]) expect(covered(merged, t)).toBe(true);
        expect(merged.length).toBeLessThanOrEqual(a.length + b.length);
        expect(mergeTolerations(merged, [])).toEqual(merged);
      }),
    );
  });
});

describe("RuntimeClass through the engine (TestRuntimeClassAdmission)", () => {
  const engine = pluginEngine;
  const RC = "runtimeclasses.node.k8s.io";

  it("a missing class is a 403 that stores nothing; an existing one's overhead and scheduling are applied", async () => {
    const e = engine();
    const s = await failure(e.create("pods", "default", pod()));
    expect(s).toMatchObject({
      code: 403,
      reason: "Forbidden",
      message: 'pods "p" is forbidden: pod rejected: RuntimeClass "foo" not found',
    });
    expect(await failure(e.get("pods", "default", "p"))).toMatchObject({ code: 404 });
    await e.create(
      RC,
      "",
      rc("foo", { overhead: { podFixed: { cpu: "250m" } }, scheduling: { nodeSelector: { sandbox: "yes" } } }),
    );
    const created = await e.create("pods", "default", pod());
    expect(specOf(created).overhead).toEqual({ cpu: "250m" });
    expect(specOf(created).nodeSelector).toEqual({ sandbox: "yes" });
    const named = await failure(
      e.create("pods", "default", { ...pod({ overhead: { cpu: "1" } }), metadata: { generateName: "gen-" } }),
    );
    expect(named.message).toBe(
      `pods "gen-" is forbidden: pod rejected: Pod's Overhead doesn't match RuntimeClass's defined Overhead`,
    );
  });

  it("a pod setting overhead without a class is refused by the validating half", async () => {
    const e = engine();
    const { runtimeClassName: _, ...spec } = specOf(pod({ overhead: { cpu: "1" } }));
    const s = await failure(e.create("pods", "default", { metadata: { name: "p" }, spec }));
    expect(s.message).toBe(
      'pods "p" is forbidden: pod rejected: Pod Overhead set without corresponding RuntimeClass defined Overhead',
    );
  });

  it("admission.runtimeClass false turns the plugin off", async () => {
    const e = engine({ runtimeClass: false });
    const created = await e.create("pods", "default", pod());
    expect(specOf(created).runtimeClassName).toBe("foo");
  });
});
