import { describe, expect, it } from "vitest";
import { strategicMergePatch } from "./strategic-merge-patch.js";

/**
 * PodSpec's `patchMergeKey` tags (`k8s.io/api/core/v1/types.go`) wherever a PodSpec is embedded: a pod template's
 * containers merge by `name`, their `env` by `name` and `ports` by `containerPort`, volumes by `name` — for every
 * kind that carries a template, at that kind's template path.
 */
const TEMPLATE_PATHS: Array<[kind: string, path: readonly string[]]> = [
  ["Pod", []],
  ["PodTemplate", ["template"]],
  ["ReplicationController", ["spec", "template"]],
  ["ReplicaSet", ["spec", "template"]],
  ["Deployment", ["spec", "template"]],
  ["StatefulSet", ["spec", "template"]],
  ["DaemonSet", ["spec", "template"]],
  ["Job", ["spec", "template"]],
  ["CronJob", ["spec", "jobTemplate", "spec", "template"]],
];

function at(path: readonly string[], podLike: Record<string, unknown>): Record<string, unknown> {
  return path.reduceRight<Record<string, unknown>>((inner, key) => ({ [key]: inner }), podLike);
}

describe("strategicMergePatch: PodSpec merge keys wherever a PodSpec is embedded", () => {
  const current = {
    spec: {
      containers: [
        { name: "app", image: "app:1", env: [{ name: "A", value: "1" }], ports: [{ containerPort: 80 }] },
        { name: "sidecar", image: "side:1" },
      ],
      volumes: [{ name: "data", emptyDir: {} }],
    },
  };
  const patch = {
    spec: {
      containers: [{ name: "app", image: "app:2", env: [{ name: "B", value: "2" }], ports: [{ containerPort: 443 }] }],
      volumes: [{ name: "cache", emptyDir: {} }],
    },
  };
  const merged = {
    spec: {
      containers: [
        {
          name: "app",
          image: "app:2",
          env: [
            { name: "A", value: "1" },
            { name: "B", value: "2" },
          ],
          ports: [{ containerPort: 80 }, { containerPort: 443 }],
        },
        { name: "sidecar", image: "side:1" },
      ],
      volumes: [
        { name: "data", emptyDir: {} },
        { name: "cache", emptyDir: {} },
      ],
    },
  };
  for (const [kind, path] of TEMPLATE_PATHS) {
    it(`${kind}: containers by name, env by name, ports by containerPort, volumes by name`, () => {
      expect(strategicMergePatch(at(path, current), at(path, patch), kind)).toEqual(at(path, merged));
    });
    it(`${kind}: $patch: delete removes one container by name`, () => {
      const del = { spec: { containers: [{ name: "sidecar", $patch: "delete" }] } };
      const out = strategicMergePatch(at(path, current), at(path, del), kind);
      const spec = path.reduce<Record<string, unknown>>((o, k) => o[k] as Record<string, unknown>, out as never);
      expect((spec.spec as { containers: Array<{ name: string }> }).containers.map((c) => c.name)).toEqual(["app"]);
    });
  }
  it("a kind without a PodSpec replaces the list (no merge key)", () => {
    const out = strategicMergePatch(
      { spec: { containers: [{ name: "a" }] } },
      { spec: { containers: [{ name: "b" }] } },
      "ConfigMap",
    );
    expect(out).toEqual({ spec: { containers: [{ name: "b" }] } });
  });
  it("a template's metadata.finalizers merge as a union on PodTemplate, as on the object", () => {
    const out = strategicMergePatch(
      { template: { metadata: { finalizers: ["a"] } } },
      { template: { metadata: { finalizers: ["b"] } } },
      "PodTemplate",
    );
    expect(out).toEqual({ template: { metadata: { finalizers: ["a", "b"] } } });
  });
});
