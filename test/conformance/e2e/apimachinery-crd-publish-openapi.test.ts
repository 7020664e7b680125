// test/e2e/apimachinery/crd_publish_openapi.go re-implemented: CustomResourceDefinitions' schemas published in the
// OpenAPI documents (`/openapi/v2` definitions polled with ETags, as upstream's waitForDefinition), `kubectl explain`
// of custom resources (kubectl reads /openapi/v3) and `kubectl create/apply` validated by the server against the
// schema. Each it(...) is named after its upstream It(...).
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { useKubectlSim } from "../../interop/kubectl-cluster-harness.js";
import { requireTool } from "../../interop/tools.js";
import { type E2eCluster, pollFor, startE2eCluster } from "./harness.js";

const kubectlSim = useKubectlSim("crd-publish-openapi", startE2eCluster);
const kubectl = kubectlSim.check;

type Schema = Record<string, unknown>;

const schemaFoo: Schema = {
  description: "Foo CRD for Testing",
  type: "object",
  properties: {
    spec: {
      type: "object",
      description: "Specification of Foo",
      properties: {
        bars: {
          description: "List of Bars and their specs.",
          type: "array",
          items: {
            type: "object",
            required: ["name"],
            properties: {
              name: { description: "Name of Bar.", type: "string" },
              age: { description: "Age of Bar.", type: "string" },
              feeling: { description: "Whether Bar is feeling great.", type: "string", enum: ["Great", "Down"] },
              bazs: { description: "List of Bazs.", items: { type: "string" }, type: "array" },
            },
          },
        },
      },
    },
    status: {
      description: "Status of Foo",
      type: "object",
      properties: {
        bars: {
          description: "List of Bars and their statuses.",
          type: "array",
          items: {
            type: "object",
            properties: {
              name: { description: "Name of Bar.", type: "string" },
              available: { description: "Whether the Bar is installed.", type: "boolean" },
              quxType: {
                description: "Indicates to external qux type.",
                pattern: "in-tree|out-of-tree",
                type: "string",
              },
            },
          },
        },
      },
    },
  },
};

const waldoParts = (description: string): Schema => ({
  description,
  type: "object",
  properties: {
    spec: {
      description: "Specification of Waldo",
      type: "object",
      properties: { dummy: { description: "Dummy property.", type: "object" } },
    },
    status: {
      description: "Status of Waldo",
      type: "object",
      properties: {
        bars: { description: "List of Bars and their statuses.", type: "array", items: { type: "object" } },
      },
    },
  },
});
const schemaWaldo = waldoParts("Waldo CRD for Testing");
const schemaPreserveRoot: Schema = {
  ...waldoParts("preserve-unknown-properties at root for Testing"),
  "x-kubernetes-preserve-unknown-fields": true,
};
const schemaPreserveNested: Schema = (() => {
  const s = waldoParts("preserve-unknown-properties in nested field for Testing");
  const props = s.properties as Record<string, Schema>;
  props.spec = { ...props.spec, "x-kubernetes-preserve-unknown-fields": true };
  return s;
})();

/** One test CRD (the framework's `crd.CreateMultiVersionTestCRD`). */
interface TestCrd {
  readonly name: string;
  readonly group: string;
  readonly plural: string;
  readonly kind: string;
  readonly versions: readonly string[];
}

let crdCounter = 0;

describe("apimachinery/crd_publish_openapi.go: CustomResourcePublishOpenAPI [Privileged:ClusterAdmin]", () => {
  let c: E2eCluster;
  let dir: string;
  let ns: string;

  const k = (args: string[], input?: string) => kubectlSim.k(args, input === undefined ? {} : { input });
  /** kubectl with a manifest as `-f` (the framework's RunKubectlInput pipes it to `-f -`). */
  const kInput = (manifest: string, args: string[]) => k(args, manifest);

  /** `setupCRDAndVerifySchema`: creates the CRD and waits for each version's definition (`expect`, or any). */
  async function setupCRD(
    schema: Schema | undefined,
    groupSuffix: string,
    versions: string[],
    expectSchema?: Schema | null,
    names?: { plural: string; singular: string; kind: string; listKind: string; shortNames: string[] },
  ) {
    const n = ++crdCounter;
    const group = `crd-publish-openapi-test-${groupSuffix}.example.com`;
    const plural = names?.plural ?? `e2e-test-crd-publish-openapi-${n}-crds`;
    const kind = names?.kind ?? `E2e-test-crd-publish-openapi-${n}-crd`;
    const body = {
      apiVersion: "apiextensions.k8s.io/v1",
      kind: "CustomResourceDefinition",
      metadata: { name: `${plural}.${group}` },
      spec: {
        group,
        scope: "Namespaced",
        names: names ?? { plural, singular: `e2e-test-crd-publish-openapi-${n}-crd`, kind, listKind: `${kind}List` },
        versions: versions.map((name, i) => ({
          name,
          served: true,
          storage: i === 0,
          schema: { openAPIV3Schema: schema ?? { type: "object", "x-kubernetes-preserve-unknown-fields": true } },
        })),
      },
    };
    const res = await c.raw("POST", "/apis/apiextensions.k8s.io/v1/customresourcedefinitions", body);
    expect(res.status, res.text).toBe(201);
    const crd: TestCrd = { name: body.metadata.name, group, plural, kind, versions };
    // setupCRD expects the schema itself, or `type: object` without one; setupCRDAndVerifySchema(…, nil) any.
    const expected = expectSchema === null ? undefined : (expectSchema ?? schema ?? { type: "object" });
    for (const v of versions) await waitForDefinition(definitionName(crd, v), expected);
    return crd;
  }

  /** `cleanupCRD`: deletes the CRD and waits for its definitions to leave the document. */
  async function cleanupCRD(crd: TestCrd) {
    const res = await c.raw("DELETE", `/apis/apiextensions.k8s.io/v1/customresourcedefinitions/${crd.name}`);
    expect(res.status).toBe(200);
    for (const v of crd.versions) await waitForDefinitionCleanup(definitionName(crd, v));
  }

  /** `definitionName`: `ToRESTFriendlyName("<group>/<version>/<kind>")`, the group reversed. */
  const definitionName = (crd: TestCrd, version: string) =>
    `${crd.group.split(".").reverse().join(".")}.${version}.${crd.kind}`;

  /**
   * upstream's `waitForOpenAPISchema` polls /openapi/v2 until `pred` holds, because kube-apiserver republishes a CRD's
   * schema asynchronously. The simulator republishes within the CRD write, so one read must already satisfy it.
   */
  async function waitForOpenAPISchema(pred: (defs: Record<string, Schema>) => string | undefined) {
    const res = await c.raw("GET", "/openapi/v2");
    expect(res.status).toBe(200);
    const msg = pred((res.json as { definitions: Record<string, Schema> }).definitions);
    expect(msg, "OpenAPI spec right after the CRD write").toBeUndefined();
  }

  /** `dropDefaults`: the properties and extension the publisher adds. */
  function dropDefaults(d: Schema): Schema {
    const out = structuredClone(d);
    const props = out.properties as Record<string, unknown> | undefined;
    if (props !== undefined) {
      delete props.metadata;
      delete props.apiVersion;
      delete props.kind;
      if (Object.keys(props).length === 0) delete out.properties;
    }
    delete out["x-kubernetes-group-version-kind"];
    return out;
  }

  async function waitForDefinition(name: string, schema: Schema | undefined) {
    await waitForOpenAPISchema((defs) => {
      const d = defs[name];
      if (d === undefined) return `spec.SwaggerProps.Definitions["${name}"] not found`;
      if (schema !== undefined && JSON.stringify(sortKeys(dropDefaults(d))) !== JSON.stringify(sortKeys(schema))) {
        return `spec.SwaggerProps.Definitions["${name}"] not match; expect: ${JSON.stringify(schema)}, actual: ${JSON.stringify(d)}`;
      }
      return undefined;
    });
  }

  /**
   * Unlike a create, a delete is not republished within the write: the CRD keeps its
   * `customresourcecleanup.apiextensions.k8s.io` finalizer until the finalizer controller has removed its objects, and
   * its definitions leave the document only when the CRD is gone — so this one polls, as upstream's does.
   */
  async function waitForDefinitionCleanup(name: string) {
    await pollFor(async () => {
      const res = await c.raw("GET", "/openapi/v2");
      expect(res.status).toBe(200);
      return (res.json as { definitions: Record<string, Schema> }).definitions[name] === undefined ? true : undefined;
    });
  }

  let explainCalls = 0;
  async function verifyKubectlExplain(name: string, pattern: RegExp) {
    // A fresh discovery cache per call: kubectl explain does not refresh a cache that predates the CRD.
    const r = await k(["--cache-dir", join(dir, `explain-cache-${++explainCalls}`), "explain", name]);
    expect(r.code, `failed to explain ${name}: ${r.stderr}`).toBe(0);
    expect(r.stdout, `kubectl explain ${name}`).toMatch(pattern);
  }

  const metaOf = (crd: TestCrd, name: string) =>
    `"kind":"${crd.kind}","apiVersion":"${crd.group}/${crd.versions[0]}","metadata":{"name":"${name}"}`;

  /** Creates, deletes, applies and deletes one CR with kubectl, each step succeeding. */
  async function createAndApply(crd: TestCrd, name: string, cr: string) {
    for (const verb of ["create", "apply"]) {
      const made = await kInput(cr, [`--namespace=${ns}`, verb, "-f", "-"]);
      expect(made.code, `failed to ${verb} CR ${cr}: ${made.stderr}`).toBe(0);
      const gone = await k([`--namespace=${ns}`, "delete", crd.plural, name]);
      expect(gone.code, gone.stderr).toBe(0);
    }
  }

  beforeAll(async () => {
    if (!kubectl.ok) return;
    c = kubectlSim.sim();
    dir = kubectlSim.dir();
    ns = await c.namespace("crd-publish-openapi");
  });

  it("works for CRD with validation schema", async (ctx) => {
    requireTool(kubectl, ctx);
    const crd = await setupCRD(schemaFoo, "foo", ["v1"]);
    const meta = metaOf(crd, "test-foo");
    // kubectl validation (kubectl create and apply) allows request with known and required properties
    await createAndApply(crd, "test-foo", `{${meta},"spec":{"bars":[{"name":"test-bar"}]}}`);

    // kubectl validation (kubectl create and apply) rejects request with value outside defined enum values
    const badEnum = `{${meta},"spec":{"bars":[{"name":"test-bar", "feeling":"NonExistentValue"}]}}`;
    const e = await kInput(badEnum, [`--namespace=${ns}`, "create", "-f", "-"]);
    expect(e.code).not.toBe(0);
    expect(e.stderr).toContain(`Unsupported value: "NonExistentValue"`);

    // kubectl validation (kubectl create and apply) rejects request with unknown properties when disallowed by the schema
    const unknown = `{${meta},"spec":{"foo":true}}`;
    for (const verb of ["create", "apply"]) {
      const r = await kInput(unknown, [`--namespace=${ns}`, verb, "-f", "-"]);
      expect(r.code, verb).not.toBe(0);
      expect(r.stderr).toMatch(/unknown field "(spec\.)?foo"/);
    }

    // kubectl validation (kubectl create and apply) rejects request without required properties
    const noRequire = `{${meta},"spec":{"bars":[{"age":"10"}]}}`;
    for (const verb of ["create", "apply"]) {
      const r = await kInput(noRequire, [`--namespace=${ns}`, verb, "-f", "-"]);
      expect(r.code, verb).not.toBe(0);
      expect(r.stderr).toMatch(/missing required field "name"|spec\.bars\[0\]\.name: Required value/);
    }

    // kubectl explain works to explain CR properties
    await verifyKubectlExplain(
      crd.plural,
      /DESCRIPTION:.*Foo CRD for Testing.*FIELDS:.*apiVersion.*<string>.*APIVersion defines.*spec.*<Object>.*Specification of Foo/s,
    );
    // kubectl explain works to explain CR properties recursively
    await verifyKubectlExplain(
      `${crd.plural}.metadata`,
      /DESCRIPTION:.*Standard object's metadata.*FIELDS:.*creationTimestamp.*<string>.*CreationTimestamp is a timestamp/s,
    );
    await verifyKubectlExplain(
      `${crd.plural}.spec`,
      /DESCRIPTION:.*Specification of Foo.*FIELDS:.*bars.*<\[\]Object>.*List of Bars and their specs/s,
    );
    await verifyKubectlExplain(
      `${crd.plural}.spec.bars`,
      /(FIELD|RESOURCE):.*bars.*<\[\]Object>.*DESCRIPTION:.*List of Bars and their specs.*FIELDS:.*bazs.*<\[\]string>.*List of Bazs.*name.*<string>.*Name of Bar/s,
    );

    // kubectl explain works to return error when explain is called on property that doesn't exist
    const missing = await k(["explain", `${crd.plural}.spec.bars2`]);
    expect(missing.code).not.toBe(0);
    expect(missing.stderr).toContain(`field "bars2" does not exist`);

    await cleanupCRD(crd);
  });

  it("works for CRD without validation schema", async (ctx) => {
    requireTool(kubectl, ctx);
    const crd = await setupCRD(undefined, "empty", ["v1"]);
    // kubectl validation (kubectl create and apply) allows request with any unknown properties
    await createAndApply(crd, "test-cr", `{${metaOf(crd, "test-cr")},"a":{"b":[{"c":"d"}]}}`);
    // kubectl explain works to explain CR without validation schema
    await verifyKubectlExplain(crd.plural, /DESCRIPTION:.*<empty>/s);
    await cleanupCRD(crd);
  });

  it("works for CRD preserving unknown fields at the schema root", async (ctx) => {
    requireTool(kubectl, ctx);
    const crd = await setupCRD(schemaPreserveRoot, "unknown-at-root", ["v1"], null);
    await createAndApply(crd, "test-cr", `{${metaOf(crd, "test-cr")},"a":{"b":[{"c":"d"}]}}`);
    // kubectl explain works to explain CR
    await verifyKubectlExplain(crd.plural, new RegExp(`KIND:.*${crd.kind}`, "s"));
    await cleanupCRD(crd);
  });

  it("works for CRD preserving unknown fields in an embedded object", async (ctx) => {
    requireTool(kubectl, ctx);
    const crd = await setupCRD(schemaPreserveNested, "unknown-in-nested", ["v1"], null);
    await createAndApply(crd, "test-cr", `{${metaOf(crd, "test-cr")},"spec":{"a":null,"b":[{"c":"d"}]}}`);
    await verifyKubectlExplain(crd.plural, /DESCRIPTION:.*preserve-unknown-properties in nested field for Testing/s);
    await cleanupCRD(crd);
  });

  it("works for multiple CRDs of different groups", async (ctx) => {
    requireTool(kubectl, ctx);
    // CRs in different groups (two CRDs) show up in OpenAPI documentation
    const foo = await setupCRD(schemaFoo, "foo", ["v1"]);
    const waldo = await setupCRD(schemaWaldo, "waldo", ["v1beta1"]);
    expect(foo.group).not.toBe(waldo.group);
    await waitForDefinition(definitionName(waldo, "v1beta1"), schemaWaldo);
    await waitForDefinition(definitionName(foo, "v1"), schemaFoo);
    await cleanupCRD(foo);
    await cleanupCRD(waldo);
  });

  it("works for multiple CRDs of same group and version but different kinds", async (ctx) => {
    requireTool(kubectl, ctx);
    // CRs in the same group and version but different kinds (two CRDs) show up in OpenAPI documentation
    const foo = await setupCRD(schemaFoo, "common-group", ["v6"]);
    const waldo = await setupCRD(schemaWaldo, "common-group", ["v6"]);
    expect(foo.group).toBe(waldo.group);
    await waitForDefinition(definitionName(waldo, "v6"), schemaWaldo);
    await waitForDefinition(definitionName(foo, "v6"), schemaFoo);
    await cleanupCRD(foo);
    await cleanupCRD(waldo);
  });

  it("works for multiple CRDs of same group but different versions", async (ctx) => {
    requireTool(kubectl, ctx);
    // CRs in the same group but different versions (one multiversion CRD) show up in OpenAPI documentation
    const multiVer = await setupCRD(schemaFoo, "multi-ver", ["v2", "v3"]);
    await waitForDefinition(definitionName(multiVer, "v3"), schemaFoo);
    await waitForDefinition(definitionName(multiVer, "v2"), schemaFoo);
    await cleanupCRD(multiVer);

    // CRs in the same group but different versions (two CRDs) show up in OpenAPI documentation
    const foo = await setupCRD(schemaFoo, "common-group", ["v4"]);
    const waldo = await setupCRD(schemaWaldo, "common-group", ["v5"]);
    expect(foo.group).toBe(waldo.group);
    await waitForDefinition(definitionName(waldo, "v5"), schemaWaldo);
    await waitForDefinition(definitionName(foo, "v4"), schemaFoo);
    await cleanupCRD(foo);
    await cleanupCRD(waldo);
  });

  it("updates the published spec when one version gets renamed", async (ctx) => {
    requireTool(kubectl, ctx);
    // set up a multi version CRD
    const multiVer = await setupCRD(schemaFoo, "multi-ver", ["v2", "v3"]);
    // rename a version
    const patch = [
      { op: "test", path: "/spec/versions/1/name", value: "v3" },
      { op: "replace", path: "/spec/versions/1/name", value: "v4" },
    ];
    const res = await c.raw(
      "PATCH",
      `/apis/apiextensions.k8s.io/v1/customresourcedefinitions/${multiVer.name}`,
      patch,
      {
        "content-type": "application/json-patch+json",
      },
    );
    expect(res.status, res.text).toBe(200);
    // check the new version name is served
    await waitForDefinition(definitionName(multiVer, "v4"), schemaFoo);
    // check the old version name is removed
    await waitForDefinitionCleanup(definitionName(multiVer, "v3"));
    // check the other version is not changed
    await waitForDefinition(definitionName(multiVer, "v2"), schemaFoo);
    // The renamed version is what cleanupCRD waits for.
    await cleanupCRD({ ...multiVer, versions: ["v2", "v4"] });
  });

  it("removes definition from spec when one version gets changed to not be served", async (ctx) => {
    requireTool(kubectl, ctx);
    // set up a multi version CRD
    const crd = await setupCRD(schemaFoo, "multi-to-single-ver", ["v5", "v6alpha1"]);
    // just double check. setupCRD() checked this for us already
    await waitForDefinition(definitionName(crd, "v6alpha1"), schemaFoo);
    await waitForDefinition(definitionName(crd, "v5"), schemaFoo);
    // mark a version not served
    const path = `/apis/apiextensions.k8s.io/v1/customresourcedefinitions/${crd.name}`;
    const got = await c.raw("GET", path);
    expect(got.status).toBe(200);
    const stored = got.json as { spec: { versions: Array<{ served: boolean }> } };
    stored.spec.versions[1]!.served = false;
    const put = await c.raw("PUT", path, stored);
    expect(put.status, put.text).toBe(200);
    // check the unserved version gets removed
    await waitForDefinitionCleanup(definitionName(crd, "v6alpha1"));
    // check the other version is not changed
    await waitForDefinition(definitionName(crd, "v5"), schemaFoo);
    await cleanupCRD({ ...crd, versions: ["v5"] });
  });

  it("[Flaky] kubectl explain works for CR with the same resource name as built-in object.", async (ctx) => {
    requireTool(kubectl, ctx);
    const customServiceShortName = `ksvc-${++crdCounter}`;
    const schemaCustomService: Schema = {
      description: "CustomService CRD for Testing",
      type: "object",
      properties: {
        spec: {
          description: "Specification of CustomService",
          type: "object",
          properties: { dummy: { description: "Dummy property.", type: "string" } },
        },
      },
    };
    const crd = await setupCRD(schemaCustomService, "service", ["v1"], schemaCustomService, {
      plural: "services",
      singular: "service",
      listKind: "ServiceList",
      kind: "Service",
      shortNames: [customServiceShortName],
    });
    await verifyKubectlExplain(
      `${customServiceShortName}.spec`,
      /DESCRIPTION:.*Specification of CustomService.*FIELDS:.*dummy.*<string>.*Dummy property/s,
    );
    await cleanupCRD(crd);
  });
});

/** A JSON value with object keys sorted (a comparison that ignores key order, as Go's DeepEqual of maps). */
function sortKeys(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(sortKeys);
  if (v === null || typeof v !== "object") return v;
  return Object.fromEntries(
    Object.keys(v)
      .sort()
      .map((k) => [k, sortKeys((v as Record<string, unknown>)[k])]),
  );
}
