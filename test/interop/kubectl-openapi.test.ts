// kubectl against the simulator's OpenAPI documents (issue #21): `kubectl explain` of built-in kinds and of a
// custom resource reads /openapi/v3, and client-side `kubectl apply` builds its strategic merge patch from the served
// v3 schemas — so a list entry another client added survives a re-apply that adds an entry, and an entry dropped
// from the manifest is deleted by a `$patch: delete` keyed by the served merge key, as on a cluster. Without the
// patch extensions in the documents kubectl would send the lists whole and could not delete an entry.
import { describe, expect, it } from "vitest";
import { useKubectlSim } from "./kubectl-cluster-harness.js";

const deployment = (containers: unknown[]) => ({
  apiVersion: "apps/v1",
  kind: "Deployment",
  metadata: { name: "web" },
  spec: {
    selector: { matchLabels: { app: "web" } },
    template: { metadata: { labels: { app: "web" } }, spec: { containers } },
  },
});

describe("interop: kubectl explain and client-side apply over the served OpenAPI", () => {
  const { k, manifest, require: requireKubectl } = useKubectlSim("kubectl-openapi");

  it("kubectl explain pods prints the kind's description and fields", async (ctx) => {
    requireKubectl(ctx);
    const r = await k(["explain", "pods"]);
    expect(r.stderr).toBe("");
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^KIND:\s+Pod\nVERSION:\s+v1\n/);
    expect(r.stdout).toContain("Pod is a collection of containers that can run on a host.");
    expect(r.stdout).toMatch(/FIELDS:\n {2}apiVersion\t<string>/);
    expect(r.stdout).toMatch(/ {2}spec\t<PodSpec>/);
  });

  it("kubectl explain deployment.spec.strategy follows references into nested fields", async (ctx) => {
    requireKubectl(ctx);
    const r = await k(["explain", "deployment.spec.strategy"]);
    expect(r.stderr).toBe("");
    expect(r.stdout).toMatch(/^GROUP:\s+apps\nKIND:\s+Deployment\nVERSION:\s+v1\n/);
    expect(r.stdout).toMatch(/FIELD: strategy <DeploymentStrategy>/);
    expect(r.stdout).toContain("The deployment strategy to use to replace existing pods with new ones.");
    expect(r.stdout).toMatch(/ {2}rollingUpdate\t<RollingUpdateDeployment>/);
    expect(r.stdout).toMatch(/ {2}type\t<string>\n {4}Type of deployment\./);
    const missing = await k(["explain", "deployment.spec.nope"]);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain(`field "nope" does not exist`);
  });

  it("kubectl explain <crd-kind>.spec prints the CRD schema's descriptions, and follows a schema change", async (ctx) => {
    requireKubectl(ctx);
    const crd = (description: string) => ({
      apiVersion: "apiextensions.k8s.io/v1",
      kind: "CustomResourceDefinition",
      metadata: { name: "widgets.example.com" },
      spec: {
        group: "example.com",
        scope: "Namespaced",
        names: { plural: "widgets", singular: "widget", kind: "Widget" },
        versions: [
          {
            name: "v1",
            served: true,
            storage: true,
            schema: {
              openAPIV3Schema: {
                type: "object",
                description: "A Widget for testing.",
                properties: {
                  spec: {
                    type: "object",
                    description,
                    properties: {
                      size: { type: "integer", description: "How big.", minimum: 1 },
                      colors: { type: "array", items: { type: "string" }, description: "Which colors." },
                    },
                  },
                },
              },
            },
          },
        ],
      },
    });
    expect((await k(["apply", "-f", manifest("crd", crd("The Widget's wishes."))])).code).toBe(0);
    const r = await k(["explain", "widgets.spec"]);
    expect(r.stderr).toBe("");
    expect(r.stdout).toMatch(/^GROUP:\s+example.com\nKIND:\s+Widget\nVERSION:\s+v1\n/);
    expect(r.stdout).toContain("The Widget's wishes.");
    expect(r.stdout).toMatch(/ {2}colors\t<\[\]string>\n {4}Which colors\./);
    expect(r.stdout).toMatch(/ {2}size\t<integer>\n {4}How big\./);
    const meta = await k(["explain", "widgets.metadata.name"]);
    expect(meta.stdout).toContain("Name must be unique within a namespace.");
    expect((await k(["apply", "-f", manifest("crd2", crd("Changed wishes."))])).code).toBe(0);
    const again = await k(["explain", "widgets.spec"]);
    expect(again.stdout).toContain("Changed wishes.");
  });

  it("kubectl apply keeps the entries another client added and drops the ones left out of the manifest (three-way strategic merge by the served merge keys)", async (ctx) => {
    requireKubectl(ctx);
    const first = deployment([
      { name: "app", image: "nginx:1.27", ports: [{ containerPort: 80 }], env: [{ name: "A", value: "1" }] },
    ]);
    expect((await k(["apply", "-f", manifest("dep1", first)])).code).toBe(0);
    // Another client adds a sidecar container, a port and an env entry to the live object.
    const patch = {
      spec: {
        template: {
          spec: {
            containers: [
              { name: "app", ports: [{ containerPort: 9090, protocol: "TCP" }], env: [{ name: "LIVE", value: "x" }] },
              { name: "sidecar", image: "busybox:1.36" },
            ],
          },
        },
      },
    };
    const p = await k(["patch", "deployment", "web", "--type=strategic", "-p", JSON.stringify(patch)]);
    expect(p.stderr).toBe("");
    // The second manifest adds an entry to each list.
    const second = deployment([
      {
        name: "app",
        image: "nginx:1.27",
        ports: [{ containerPort: 80 }, { containerPort: 443 }],
        env: [
          { name: "A", value: "1" },
          { name: "B", value: "2" },
        ],
      },
      { name: "logger", image: "fluent-bit:3" },
    ]);
    const r = await k(["apply", "-v=6", "-f", manifest("dep2", second)]);
    expect(r.code).toBe(0);
    // kubectl computed the patch from the served v3 document (no fallback warning).
    expect(r.stderr).toMatch(/GET http:\/\/[^ ]+\/openapi\/v3\/apis\/apps\/v1\?hash=[0-9A-F]{128}&timeout=\d+s 200 OK/);
    expect(r.stderr).not.toContain("error calculating patch from openapi");
    const live = JSON.parse((await k(["get", "deployment", "web", "-o", "json"])).stdout);
    const containers = live.spec.template.spec.containers as Array<{
      name: string;
      ports?: Array<{ containerPort: number }>;
      env?: Array<{ name: string }>;
    }>;
    expect(containers.map((c) => c.name).sort()).toEqual(["app", "logger", "sidecar"]);
    const app = containers.find((c) => c.name === "app")!;
    expect(app.ports!.map((x) => x.containerPort).sort((a, b) => a - b)).toEqual([80, 443, 9090]);
    expect(app.env!.map((e) => e.name).sort()).toEqual(["A", "B", "LIVE"]);
    // A third apply drops, from the last-applied configuration, the logger container, port 443 and env B: kubectl's
    // three-way merge must send a `$patch: delete` for each, keyed by the list's merge key, which it only knows from
    // the served x-kubernetes-patch-merge-key. (Treating the lists as atomic, it would send the new lists whole, and
    // the server's strategic merge by its own keys would keep every entry.) What the other client added stays.
    const third = deployment([
      {
        name: "app",
        image: "nginx:1.27",
        ports: [{ containerPort: 80 }],
        env: [{ name: "A", value: "1" }],
      },
    ]);
    const dropped = await k(["apply", "-v=8", "-f", manifest("dep3", third)]);
    expect(dropped.code, dropped.stderr).toBe(0);
    expect(dropped.stderr).not.toContain("error calculating patch from openapi");
    // -v=8 logs the PATCH body as a quoted string: `"Request Body" body="{\"metadata\":…}"`.
    const quoted = dropped.stderr.split("\n").flatMap((l) => {
      const m = /"Request Body" body=(".*\$patch.*")$/.exec(l);
      return m === null ? [] : [JSON.parse(m[1]!) as string];
    });
    expect(quoted, "the PATCH request body").toHaveLength(1);
    const body = quoted[0]!;
    for (const entry of [
      '{"$patch":"delete","name":"logger"}',
      '{"$patch":"delete","containerPort":443}',
      '{"$patch":"delete","name":"B"}',
    ])
      expect(body).toContain(entry);
    const after = JSON.parse((await k(["get", "deployment", "web", "-o", "json"])).stdout);
    const kept = after.spec.template.spec.containers as typeof containers;
    expect(kept.map((c) => c.name).sort()).toEqual(["app", "sidecar"]);
    const keptApp = kept.find((c) => c.name === "app")!;
    expect(keptApp.ports!.map((x) => x.containerPort).sort((a, b) => a - b)).toEqual([80, 9090]);
    expect(keptApp.env!.map((e) => e.name).sort()).toEqual(["A", "LIVE"]);
  });
});
