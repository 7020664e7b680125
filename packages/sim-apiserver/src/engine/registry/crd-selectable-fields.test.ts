// CRD selectableFields (CustomResourceFieldSelectors): the validation of apiextensions'
// ValidateCustomResourceSelectableFields (validation.go) as a table, and, over HTTP on the real engine, list, watch
// and deletecollection of custom resources with field selectors on those fields — the flow of upstream's
// test/e2e/apimachinery/crd_selectable_fields.go on one served version (the e2e test itself needs a conversion
// webhook between two versions, which the simulator does not call).
import { fieldErrorString } from "@informer-ts/apimachinery";
import { FakeClock } from "@informer-ts/clock";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type EngineServer, startEngineServer } from "../../http/engine-server.test-util.js";
import { fetchRaw, openStream } from "../../http/http-client.test-util.js";
import { selectableFieldLabels, validateSelectableFields } from "./crd-selectable-fields.js";
import { validateCustomResourceDefinition } from "./custom-resource-definitions.js";

const SCHEMA = {
  type: "object",
  properties: {
    host: { type: "string" },
    port: { type: "string" },
    replicas: { type: "integer" },
    enabled: { type: "boolean" },
    ratio: { type: "number" },
    labels: { type: "object", additionalProperties: { type: "string" } },
    items: { type: "array", items: { type: "string" } },
    spec: { type: "object", properties: { color: { type: "string", enum: ["red", "blue"] } } },
    metadata: { type: "object", properties: { name: { type: "string" } } },
  },
};

const version = (selectableFields: unknown, schema: unknown = SCHEMA) => ({
  name: "v1",
  served: true,
  storage: true,
  ...(schema !== null && { schema: { openAPIV3Schema: schema } }),
  selectableFields,
});

describe("ValidateCustomResourceSelectableFields (apiextensions validation.go)", () => {
  const p = (i: number) => `spec.versions[0].selectableFields[${i}].jsonPath`;
  it.each([
    ["string, integer, boolean and enum string fields", [".host", ".replicas", ".enabled", ".spec.color"], []],
    ["a key of a map of strings", [".labels.team"], []],
    ["no selectable fields", [], []],
    ["empty jsonPath", [""], [`${p(0)}: Required value`]],
    [
      "a field the schema does not have",
      [".nope"],
      [`${p(0)}: Invalid value: ".nope": is an invalid path: does not refer to a valid field`],
    ],
    [
      "array notation",
      [".items[0]"],
      [`${p(0)}: Invalid value: ".items[0]": is an invalid path: array notation is not allowed`],
    ],
    ["no leading dot", ["host"], [`${p(0)}: Invalid value: "host": is an invalid path: expected [ or . but got: host`]],
    [
      "a trailing dot",
      [".spec."],
      [`${p(0)}: Invalid value: ".spec.": is an invalid path: unexpected end of JSON path`],
    ],
    [
      "a number field",
      [".ratio"],
      [
        `${p(0)}: Invalid value: ".ratio": must point to a field of type string, boolean or integer. Enum string fields and strings with formats are allowed.`,
      ],
    ],
    [
      "an object field",
      [".spec"],
      [
        `${p(0)}: Invalid value: ".spec": must point to a field of type string, boolean or integer. Enum string fields and strings with formats are allowed.`,
      ],
    ],
    [
      "metadata",
      [".metadata.name"],
      [`${p(0)}: Invalid value: ".metadata.name": must not point to fields in metadata`],
    ],
    ["a duplicate", [".host", ".host"], [`${p(1)}: Duplicate value: ".host"`]],
  ])("%s", (_name, paths, want) => {
    const errs = validateSelectableFields(version(paths.map((jsonPath) => ({ jsonPath }))), 0);
    expect(errs.map(fieldErrorString)).toEqual(want);
  });

  it("at most 8 distinct fields", () => {
    const props = Object.fromEntries(Array.from({ length: 9 }, (_, i) => [`f${i}`, { type: "string" }]));
    const nine = Array.from({ length: 9 }, (_, i) => ({ jsonPath: `.f${i}` }));
    const schema = { type: "object", properties: props };
    expect(validateSelectableFields(version(nine, schema), 0).map(fieldErrorString)).toEqual([
      "spec.versions[0].selectableFields: Too many: 9: must have at most 8 items",
    ]);
    expect(validateSelectableFields(version(nine.slice(0, 8), schema), 0)).toEqual([]);
  });

  it("a version without a schema cannot declare selectable fields", () => {
    expect(validateSelectableFields(version([{ jsonPath: ".host" }], null), 0).map(fieldErrorString)).toEqual([
      'spec.versions[0].selectableFields: Invalid value: "": selectableFields may only be set when version.schema.openAPIV3Schema is not included',
    ]);
  });

  it("is part of the definition's validation, and the field labels drop the leading dot", () => {
    const crd = {
      apiVersion: "apiextensions.k8s.io/v1",
      kind: "CustomResourceDefinition",
      metadata: { name: "hosts.sel.example.com" },
      spec: {
        group: "sel.example.com",
        scope: "Namespaced",
        names: { plural: "hosts", kind: "Host" },
        versions: [version([{ jsonPath: ".ratio" }])],
      },
    };
    expect(validateCustomResourceDefinition(crd).map((e) => e.field)).toEqual([
      "spec.versions[0].selectableFields[0].jsonPath",
    ]);
    expect(selectableFieldLabels(version([{ jsonPath: ".host" }, { jsonPath: ".spec.color" }]))).toEqual([
      "host",
      "spec.color",
    ]);
  });
});

describe("custom resources selected by selectableFields over HTTP (crd_selectable_fields.go's flow)", () => {
  let s: EngineServer;
  const clock = new FakeClock(Date.parse("2026-01-01T00:00:00Z"));
  const json = { "content-type": "application/json" };
  const base = "/apis/stable.example.com/v2/namespaces/default/e2e-test-crds";
  beforeAll(async () => {
    s = await startEngineServer(clock);
    const crd = {
      apiVersion: "apiextensions.k8s.io/v1",
      kind: "CustomResourceDefinition",
      metadata: { name: "e2e-test-crds.stable.example.com" },
      spec: {
        group: "stable.example.com",
        scope: "Namespaced",
        names: { plural: "e2e-test-crds", singular: "e2e-test-crd", kind: "E2eTestCrd" },
        versions: [
          {
            name: "v2",
            served: true,
            storage: true,
            schema: {
              openAPIV3Schema: { type: "object", properties: { host: { type: "string" }, port: { type: "string" } } },
            },
            selectableFields: [{ jsonPath: ".host" }, { jsonPath: ".port" }],
          },
        ],
      },
    };
    const res = await fetchRaw(`${s.url}/apis/apiextensions.k8s.io/v1/customresourcedefinitions`, {
      method: "POST",
      headers: json,
      body: JSON.stringify(crd),
    });
    expect(res.status).toBe(201);
  });
  afterAll(async () => {
    await s.close();
  });

  const names = async (fieldSelector: string) => {
    const r = await fetchRaw(`${s.url}${base}?fieldSelector=${encodeURIComponent(fieldSelector)}`);
    expect(r.status).toBe(200);
    return ((r.json as { items: { metadata: { name: string } }[] }).items ?? []).map((i) => i.metadata.name).sort();
  };

  it("lists, watches and deletes custom resources matching the field selector", async () => {
    const hostWatch = await openStream(`${s.url}${base}?watch=true&fieldSelector=host%3Dhost1`);
    const hostPortWatch = await openStream(`${s.url}${base}?watch=true&fieldSelector=host%3Dhost1,port%3D80`);
    expect([hostWatch.status, hostPortWatch.status]).toEqual([200, 200]);

    const toCreate = [{ host: "host1", port: "80" }, { host: "host1", port: "8080" }, { host: "host2" }];
    for (const [i, fields] of toCreate.entries()) {
      const r = await fetchRaw(`${s.url}${base}`, {
        method: "POST",
        headers: json,
        body: JSON.stringify({
          apiVersion: "stable.example.com/v2",
          kind: "E2eTestCrd",
          metadata: { name: `selectable-field-cr${i}` },
          ...fields,
        }),
      });
      expect(r.status).toBe(201);
    }
    const [cr0, cr1] = ["selectable-field-cr0", "selectable-field-cr1"];
    expect(await names("host=host1")).toEqual([cr0, cr1]);
    expect(await names("host=host1,port=80")).toEqual([cr0]);
    expect(await names("host!=host1")).toEqual(["selectable-field-cr2"]);
    expect(await names("port=")).toEqual(["selectable-field-cr2"]);

    const events = async (w: Awaited<ReturnType<typeof openStream>>, n: number) => {
      const out: string[] = [];
      for (let i = 0; i < n; i++) {
        const ev = (await w.nextEvent()) as { type: string; object: { metadata: { name: string } } };
        out.push(`${ev.type} ${ev.object.metadata.name}`);
      }
      return out;
    };
    expect(await events(hostWatch, 2)).toEqual([`ADDED ${cr0}`, `ADDED ${cr1}`]);
    expect(await events(hostPortWatch, 1)).toEqual([`ADDED ${cr0}`]);

    // deletecollection with the field selector, then an update that moves cr1 out of host=host1
    const del = await fetchRaw(`${s.url}${base}?fieldSelector=${encodeURIComponent("host=host1,port=80")}`, {
      method: "DELETE",
      headers: json,
      body: JSON.stringify({ gracePeriodSeconds: 0 }),
    });
    expect(del.status).toBe(200);
    const got = (await fetchRaw(`${s.url}${base}/${cr1}`)).json as Record<string, unknown>;
    const put = await fetchRaw(`${s.url}${base}/${cr1}`, {
      method: "PUT",
      headers: json,
      body: JSON.stringify({ ...got, host: "host2" }),
    });
    expect(put.status).toBe(200);
    expect(await names("host=host1")).toEqual([]);
    expect(await names("host=host1,port=80")).toEqual([]);
    // an object that stops matching is a DELETED event for a selecting watch
    expect(await events(hostWatch, 2)).toEqual([`DELETED ${cr0}`, `DELETED ${cr1}`]);
    expect(await events(hostPortWatch, 1)).toEqual([`DELETED ${cr0}`]);
    hostWatch.close();
    hostPortWatch.close();
  });

  it("a field that is not selectable is refused as for any resource", async () => {
    const r = await fetchRaw(`${s.url}${base}?fieldSelector=spec.other%3Dx`);
    expect(r.status).toBe(400);
    expect((r.json as { message: string }).message).toContain("spec.other");
  });
});
