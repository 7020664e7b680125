// kubectl against the simulator's admission chain: server-side field validation as kubectl drives it
// (`--validate=strict` is its default and sends `fieldValidation=Strict`; `--validate=false` sends `Ignore`;
// `--validate=warn` sends `Warn`) and the 422 of an invalid manifest as kubectl prints it.
import { describe, expect, it } from "vitest";
import { useKubectlSim } from "./kubectl-cluster-harness.js";

const deployment = (name: string, spec: Record<string, unknown> = {}) => ({
  apiVersion: "apps/v1",
  kind: "Deployment",
  metadata: { name },
  spec: {
    selector: { matchLabels: { app: name } },
    template: { metadata: { labels: { app: name } }, spec: { containers: [{ name: "web", image: "nginx:1.27" }] } },
    ...spec,
  },
});

describe("interop: kubectl and server-side field validation", () => {
  const { k, manifest, require: requireKubectl } = useKubectlSim("kubectl-validation");

  it("create -f of a manifest with an unknown field fails under the default strict validation", async (ctx) => {
    requireKubectl(ctx);
    const f = manifest("unknown", deployment("strict-dep", { foo: "bar" }));
    const r = await k(["create", "-f", f]);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(
      `Error from server (BadRequest): error when creating "${f}": Deployment in version "v1" cannot be handled as a Deployment: strict decoding error: unknown field "spec.foo"`,
    );
    expect((await k(["get", "deployment", "strict-dep"])).code).toBe(1);
  });

  it("passes with --validate=false (the unknown field is dropped) and warns with --validate=warn", async (ctx) => {
    requireKubectl(ctx);
    const off = await k(["create", "--validate=false", "-f", manifest("off", deployment("loose-dep", { foo: "bar" }))]);
    expect([off.code, off.stdout.trim(), off.stderr]).toEqual([0, "deployment.apps/loose-dep created", ""]);
    const stored = JSON.parse((await k(["get", "deployment", "loose-dep", "-o", "json"])).stdout);
    expect(stored.spec).not.toHaveProperty("foo");
    expect(stored.spec).toMatchObject({ replicas: 1, strategy: { type: "RollingUpdate" } });
    const warn = await k(["create", "--validate=warn", "-f", manifest("warn", deployment("warn-dep", { foo: "bar" }))]);
    expect(warn.code).toBe(0);
    expect(warn.stderr).toContain('Warning: unknown field "spec.foo"');
  });

  it("apply -f of an invalid manifest prints upstream's 422", async (ctx) => {
    requireKubectl(ctx);
    const f = manifest("invalid", {
      apiVersion: "apps/v1",
      kind: "Deployment",
      metadata: { name: "bad" },
      spec: { replicas: -4 },
    });
    const r = await k(["apply", "-f", f]);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('The Deployment "bad" is invalid: ');
    expect(r.stderr).toContain("* spec.replicas: Invalid value: -4: must be greater than or equal to 0");
    expect(r.stderr).toContain("* spec.selector: Required value");
    expect(r.stderr).toContain("* spec.template.spec.containers: Required value");
    const cm = manifest("cm", {
      apiVersion: "v1",
      kind: "ConfigMap",
      metadata: { name: "keys" },
      data: { "a b": "v" },
    });
    const bad = await k(["apply", "-f", cm]);
    expect(bad.stderr).toContain(
      `The ConfigMap "keys" is invalid: data[a b]: Invalid value: "a b": a valid config key must consist of alphanumeric characters, '-', '_' or '.' (e.g. 'key.name',  or 'KEY_NAME',  or 'key-name', regex used for validation is '[-._a-zA-Z0-9]+')`,
    );
  });
});
