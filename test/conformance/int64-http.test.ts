// int64 beyond 2^53 in custom resources over real HTTP: kube-apiserver decodes an unstructured integer into an
// int64, so 9223372036854775807 is stored, served, patched, watched and validated exactly; a JSON.parse decode
// would answer 9223372036854776000. The schema's `integer`/`format: int64`, `maximum` and CEL rules see the exact value.
import type { KubeObject } from "@informer-ts/apimachinery";
import { FakeClock, seededRand } from "@informer-ts/clock";
import { afterEach, describe, expect, it } from "vitest";
import { SimApiServer } from "../../packages/sim-apiserver/src/engine/sim-apiserver.js";
import { EngineBackend } from "../../packages/sim-apiserver/src/http/engine-backend.js";
import { fetchRaw, openStream } from "../../packages/sim-apiserver/src/http/http-client.test-util.js";
import { SimHttpServer } from "../../packages/sim-apiserver/src/http/server.js";

const MAX = "9223372036854775807";
const MIN = "-9223372036854775808";
const open: SimHttpServer[] = [];
afterEach(async () => {
  for (const s of open.splice(0)) await s.close();
});

async function start() {
  const clock = new FakeClock(Date.parse("2026-06-01T00:00:00Z"));
  const engine = new SimApiServer({ clock, rand: seededRand(3), progressNotifyIntervalMs: 0, compactionIntervalMs: 0 });
  const server = new SimHttpServer({ backend: new EngineBackend(engine), clock });
  open.push(server);
  const url = await server.start();
  const req = (method: string, path: string, body?: string, type = "application/json") =>
    fetchRaw(`${url}${path}`, { method, headers: { "content-type": type }, ...(body !== undefined && { body }) });
  const crd: KubeObject = {
    apiVersion: "apiextensions.k8s.io/v1",
    kind: "CustomResourceDefinition",
    metadata: { name: "counters.example.net" },
    spec: {
      group: "example.net",
      names: { plural: "counters", kind: "Counter" },
      scope: "Namespaced",
      versions: [
        {
          name: "v1",
          served: true,
          storage: true,
          schema: {
            openAPIV3Schema: {
              type: "object",
              properties: {
                spec: {
                  type: "object",
                  properties: {
                    big: { type: "integer", format: "int64" },
                    small: { type: "integer", maximum: 10 },
                    ratio: { type: "number" },
                    free: { type: "object", "x-kubernetes-preserve-unknown-fields": true },
                  },
                  "x-kubernetes-validations": [
                    { rule: "!has(self.big) || self.big != 9223372036854775806", message: "big must not be MAX-1" },
                  ],
                },
              },
            },
          },
        },
      ],
    },
  };
  const made = await req("POST", "/apis/apiextensions.k8s.io/v1/customresourcedefinitions", JSON.stringify(crd));
  expect(made.status).toBe(201);
  return { req, url, path: "/apis/example.net/v1/namespaces/default/counters" };
}

const counter = (name: string, spec: string) =>
  `{"apiVersion":"example.net/v1","kind":"Counter","metadata":{"name":"${name}"},"spec":${spec}}`;

describe("int64 beyond 2^53 in custom resources (apiextensions keeps int64)", () => {
  it("9223372036854775807 round-trips exactly through create, get, list and a merge patch", async () => {
    const s = await start();
    const created = await s.req("POST", s.path, counter("c1", `{"big":${MAX},"free":{"n":${MIN}}}`));
    expect(created.status).toBe(201);
    expect(created.text).toContain(`"big":${MAX}`);
    expect(created.text).toContain(`"n":${MIN}`);
    expect((await s.req("GET", `${s.path}/c1`)).text).toContain(`"big":${MAX}`);
    expect((await s.req("GET", s.path)).text).toContain(`"big":${MAX}`);
    const patched = await s.req(
      "PATCH",
      `${s.path}/c1`,
      '{"spec":{"big":9007199254740993}}',
      "application/merge-patch+json",
    );
    expect(patched.status).toBe(200);
    expect(patched.text).toContain('"big":9007199254740993');
  });

  it("a watch event carries the exact value", async () => {
    const s = await start();
    const rv = ((await s.req("GET", s.path)).json as { metadata: { resourceVersion: string } }).metadata
      .resourceVersion;
    const stream = await openStream(`${s.url}${s.path}?watch=1&resourceVersion=${rv}`);
    await s.req("POST", s.path, counter("c2", `{"big":${MAX}}`));
    const line = await stream.nextLine();
    stream.close();
    expect(line).toContain('"type":"ADDED"');
    expect(line).toContain(`"big":${MAX}`);
  });

  it("schema validation sees the exact value: maximum, int64 type, CEL", async () => {
    const s = await start();
    const tooBig = await s.req("POST", s.path, counter("c3", `{"small":${MAX}}`));
    expect(tooBig.status).toBe(422);
    expect((tooBig.json as { message: string }).message).toContain(
      `spec.small: Invalid value: ${MAX}: spec.small in body should be less than or equal to 10`,
    );
    const rule = await s.req("POST", s.path, counter("c4", '{"big":9223372036854775806}'));
    expect(rule.status).toBe(422);
    expect((rule.json as { message: string }).message).toContain("big must not be MAX-1");
    // A double (2^53 + 1 is not representable) is a double, not an int: a `number` field takes it, `integer` does not.
    expect((await s.req("POST", s.path, counter("c5", '{"ratio":92233720368547758070}'))).status).toBe(201);
    const notInt = await s.req("POST", s.path, counter("c6", '{"big":1.5}'));
    expect(notInt.status).toBe(422);
  });

  it("built-in kinds keep the native decode and still store their values (a ConfigMap with a long digit string)", async () => {
    const s = await start();
    const body = `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"cm"},"data":{"id":"12345678901234567890"}}`;
    const created = await s.req("POST", "/api/v1/namespaces/default/configmaps", body);
    expect(created.status).toBe(201);
    expect((created.json as { data: { id: string } }).data.id).toBe("12345678901234567890");
  });

  it("YAML bodies keep int64 too: a create as application/yaml and a server-side apply", async () => {
    const s = await start();
    const yaml = (name: string) =>
      `apiVersion: example.net/v1\nkind: Counter\nmetadata:\n  name: ${name}\nspec:\n  big: ${MAX}\n  free:\n    n: ${MIN}\n    safe: 42\n`;
    const created = await s.req("POST", s.path, yaml("y1"), "application/yaml");
    expect(created.status).toBe(201);
    expect(created.text).toContain(`"big":${MAX}`);
    expect(created.text).toContain(`"n":${MIN}`);
    expect(created.text).toContain('"safe":42');
    const applied = await s.req(
      "PATCH",
      `${s.path}/y2?fieldManager=yaml-test`,
      yaml("y2"),
      "application/apply-patch+yaml",
    );
    expect(applied.status).toBe(201);
    expect(applied.text).toContain(`"big":${MAX}`);
    expect((await s.req("GET", `${s.path}/y2`)).text).toContain(`"big":${MAX}`);
    // The schema's maximum sees the exact value in YAML as in JSON.
    const tooBig = await s.req(
      "PATCH",
      `${s.path}/y3?fieldManager=yaml-test`,
      `apiVersion: example.net/v1\nkind: Counter\nmetadata:\n  name: y3\nspec:\n  small: ${MAX}\n`,
      "application/apply-patch+yaml",
    );
    expect(tooBig.status).toBe(422);
    expect((tooBig.json as { message: string }).message).toContain(`spec.small: Invalid value: ${MAX}:`);
  });
});
