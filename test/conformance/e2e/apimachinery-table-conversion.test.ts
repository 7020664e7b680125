// test/e2e/apimachinery/table_conversion.go re-implemented against the simulator over HTTP (Table requests sent
// with the Accept header client-go's table printer uses).
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type E2eCluster, startE2eCluster } from "./harness.js";

let c: E2eCluster;
beforeAll(async () => {
  c = await startE2eCluster();
});
afterAll(async () => {
  await c.close();
});

const TABLE = { accept: "application/json;as=Table;v=v1;g=meta.k8s.io" };

interface Table {
  kind: string;
  columnDefinitions: Array<{ name: string }>;
  rows: Array<{ cells: unknown[] }>;
  metadata: { continue?: string; resourceVersion?: string };
}

describe("[sig-api-machinery] Servers with support for Table transformation (apimachinery/table_conversion.go)", () => {
  it("should return pod details", async () => {
    const ns = await c.namespace("tables");
    await c.core.createNamespacedPod({
      namespace: ns,
      body: { metadata: { name: "pod-1" }, spec: { containers: [{ name: "example", image: "nginx" }] } },
    });
    const r = await c.raw("GET", `/api/v1/namespaces/${ns}/pods/pod-1`, undefined, TABLE);
    expect(r.status).toBe(200);
    const t = r.json as Table;
    expect(t.kind).toBe("Table");
    expect(t.columnDefinitions.map((d) => d.name)).toEqual([
      "Name",
      "Ready",
      "Status",
      "Restarts",
      "Age",
      "IP",
      "Node",
      "Nominated Node",
      "Readiness Gates",
    ]);
    expect(t.rows).toHaveLength(1);
    expect(t.rows[0]!.cells.slice(0, 4)).toEqual(["pod-1", "0/1", "Pending", "0"]);
  });

  it("should return chunks of table results for list calls", async () => {
    const ns = await c.namespace("tables");
    for (let i = 0; i < 3; i++) {
      await c.core.createNamespacedPodTemplate({
        namespace: ns,
        body: {
          metadata: { name: `template-000${i}` },
          template: { spec: { containers: [{ name: "test", image: "test2" }] } },
        },
      });
    }
    const first = (await c.raw("GET", `/api/v1/namespaces/${ns}/podtemplates?limit=2`, undefined, TABLE)).json as Table;
    expect(first.rows).toHaveLength(2);
    expect(first.metadata.continue).toEqual(expect.any(String));
    expect(first.columnDefinitions.length).toBeGreaterThan(0);
    const rest = (
      await c.raw(
        "GET",
        `/api/v1/namespaces/${ns}/podtemplates?limit=2&continue=${encodeURIComponent(first.metadata.continue!)}`,
        undefined,
        TABLE,
      )
    ).json as Table;
    expect(rest.rows).toHaveLength(1);
    expect(rest.metadata.continue).toBeUndefined();
    expect(rest.rows[0]!.cells[0]).toBe("template-0002");
  });

  it("should return a 406 for a backend which does not implement metadata", async () => {
    const sar = { spec: { nonResourceAttributes: { path: "/", verb: "get" } } };
    const r = await c.raw("POST", "/apis/authorization.k8s.io/v1/selfsubjectaccessreviews", sar, TABLE);
    expect(r.status).toBe(406);
    expect((r.json as { reason: string }).reason).toBe("NotAcceptable");
  });
});
