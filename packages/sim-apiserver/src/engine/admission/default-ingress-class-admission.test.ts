// The DefaultIngressClass admission plugin: plugin/pkg/admission/network/defaultingressclass/admission_test.go's
// `TestDefaultIngressClassAdmission` table, and the plugin through the engine.
import type { KubeObject } from "@informer-ts/apimachinery";
import { describe, expect, it } from "vitest";
import { admitDefaultIngressClass, IS_DEFAULT_INGRESS_CLASS } from "./default-ingress-class-admission.js";
import { pluginEngine } from "./plugin-engine.test-util.js";

const cls = (name: string, isDefault: string | undefined, created = "2026-01-01T00:00:00Z"): KubeObject => ({
  metadata: {
    name,
    creationTimestamp: created,
    ...(isDefault !== undefined && { annotations: { [IS_DEFAULT_INGRESS_CLASS]: isDefault } }),
  },
  spec: { controller: "example.com/c" },
});
const ingress = (className?: string, annotation?: string): KubeObject => ({
  metadata: {
    name: "testing",
    ...(annotation !== undefined && { annotations: { "kubernetes.io/ingress.class": annotation } }),
  },
  spec: { ...(className !== undefined && { ingressClassName: className }) },
});
const classOf = (i: KubeObject) => (i.spec as { ingressClassName?: string }).ingressClassName;

describe("TestDefaultIngressClassAdmission", () => {
  const default1 = cls("default1", "true");
  const default2 = cls("default2", "true");
  const newer = cls("newer", "true", "2026-01-02T00:00:00Z");
  const nonDefault = cls("nondefault1", undefined);
  const notTrue = cls("nondefault2", "false");
  it.each([
    ["no default, no modification of Ingress", [nonDefault, notTrue], ingress(), undefined],
    ["one default, modify Ingress with class=nil", [default1, nonDefault], ingress(), "default1"],
    ["one default, no modification of Ingress with class field=''", [default1], ingress(""), ""],
    ["one default, no modification of Ingress with class field='foo'", [default1], ingress("foo"), "foo"],
    [
      "one default, no modification of Ingress with class annotation='foo'",
      [default1],
      ingress(undefined, "foo"),
      undefined,
    ],
    ["two defaults of one age, the lower name", [default2, default1], ingress(), "default1"],
    ["two defaults, the newer", [default1, newer, default2], ingress(), "newer"],
  ])("%s", (_name, classes, obj, want) => {
    admitDefaultIngressClass(obj, () => classes);
    expect(classOf(obj)).toBe(want);
  });
});

describe("DefaultIngressClass through the engine", () => {
  const IC = "ingressclasses.networking.k8s.io";
  const ING = "ingresses.networking.k8s.io";
  const basic = (name: string): KubeObject => ({
    metadata: { name },
    spec: { defaultBackend: { service: { name: "defaultbackend", port: { number: 80 } } } },
  });
  const engine = pluginEngine;
  it("a new Ingress gets the default class; an update does not", async () => {
    const e = engine();
    const before = await e.create(ING, "default", basic("before"));
    await e.create(IC, "", {
      metadata: { name: "ic1", annotations: { [IS_DEFAULT_INGRESS_CLASS]: "true" } },
      spec: {},
    });
    expect(classOf(await e.create(ING, "default", basic("after")))).toBe("ic1");
    expect(classOf(await e.update(ING, "default", "before", before))).toBeUndefined();
  });
  it("admission.defaultIngressClass false turns the plugin off", async () => {
    const e = engine({ defaultIngressClass: false });
    await e.create(IC, "", {
      metadata: { name: "ic1", annotations: { [IS_DEFAULT_INGRESS_CLASS]: "true" } },
      spec: {},
    });
    expect(classOf(await e.create(ING, "default", basic("after")))).toBeUndefined();
  });
});
