// The "API operations" conformance tests of the non-core groups — network/ingress.go, ingressclass.go,
// endpointslice.go, service_cidrs.go, common/node/runtimeclass.go, apimachinery/flowcontrol.go,
// validatingadmissionpolicy.go, auth/certificates.go — re-implemented
// with raw requests (as their typed, discovery and dynamic clients send them) against the simulator over HTTP.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  collection,
  createThree,
  deleteOneThenCollection,
  expectDiscovered,
  type Obj,
  patchAndUpdateStatusConditions,
  patchAndUpdateWatched,
  retryOnConflict,
  watchUntilAnnotated,
} from "./api-operations.js";
import { type E2eCluster, startE2eCluster } from "./harness.js";

let c: E2eCluster;
beforeAll(async () => {
  c = await startE2eCluster();
});
afterAll(async () => {
  await c.close();
});

let unique = 0;
const uniqueName = (base: string) => `${base}-${++unique}-${Date.now().toString(36)}`;

describe("[sig-network] Ingress API (network/ingress.go)", () => {
  it("should support creating Ingress API operations", async () => {
    const ns = await c.namespace("ingress");
    const special = uniqueName("ingress");
    const col = collection(c, `/apis/networking.k8s.io/v1/namespaces/${ns}/ingresses`);
    const template = (host: string) => ({
      apiVersion: "networking.k8s.io/v1",
      kind: "Ingress",
      metadata: { generateName: "e2e-example-ing", labels: { "special-label": special } },
      spec: {
        defaultBackend: { service: { name: "default-backend", port: { number: 8080 } } },
        rules: [
          {
            host,
            http: {
              paths: [
                {
                  path: "/",
                  pathType: "ImplementationSpecific",
                  backend: { service: { name: "test-backend", port: { number: 8080 } } },
                },
              ],
            },
          },
        ],
      },
      status: { loadBalancer: {} },
    });
    await expectDiscovered(c, "networking.k8s.io", "v1", ["ingresses"]);
    await col.create(template("host1.bar.com"));
    await col.create(template("host2.bar.com"));
    const created = await col.create(template("host3.bar.com"));
    expect((await col.get(created.metadata.name)).metadata.uid).toBe(created.metadata.uid);
    const label = `labelSelector=special-label%3D${special}`;
    const list = await col.list(label);
    expect(list.items).toHaveLength(3);
    const cluster = collection(c, "/apis/networking.k8s.io/v1/ingresses");
    expect((await cluster.list(label)).items).toHaveLength(3);
    const stop = new AbortController();
    const clusterWatch = await fetch(
      `${c.url}/apis/networking.k8s.io/v1/ingresses?watch=true&resourceVersion=${list.metadata.resourceVersion}&${label}`,
      { signal: stop.signal },
    );
    expect(clusterWatch.status).toBe(200);
    stop.abort();

    await patchAndUpdateWatched(c, col, created.metadata.name, {
      resourceVersion: list.metadata.resourceVersion,
      labelSelector: `special-label=${special}`,
    });

    const lbStatus = { ingress: [{ ip: "169.1.1.1" }] };
    const patchedStatus = await col.mergePatch(
      created.metadata.name,
      { metadata: { annotations: { patchedstatus: "true" } }, status: { loadBalancer: lbStatus } },
      "status",
    );
    expect(patchedStatus.status?.loadBalancer).toEqual(lbStatus);
    expect(patchedStatus.metadata.annotations?.patchedstatus).toBe("true");
    const want = { ingress: [{ ip: "169.1.1.2" }] };
    const updatedStatus = await retryOnConflict(
      col,
      created.metadata.name,
      (o) => {
        o.status = { loadBalancer: want };
      },
      "status",
    );
    expect(updatedStatus.status?.loadBalancer).toEqual(want);
    expect((await col.get(created.metadata.name, "status")).metadata.uid).toBe(created.metadata.uid);

    await col.delete(created.metadata.name);
    // no ingress controller sets finalizers here: the object is gone at once (upstream accepts either)
    expect(await col.status(created.metadata.name)).toBe(404);
    expect((await col.list(label)).items.length).toBeLessThanOrEqual(3);
    await col.deleteCollection(label);
    expect((await col.list(label)).items).toEqual([]);
  });
});

describe("[sig-network] IngressClass API (network/ingressclass.go)", () => {
  const col = () => collection(c, "/apis/networking.k8s.io/v1/ingressclasses");
  const ingressClass = (name: string, special: string) => ({
    apiVersion: "networking.k8s.io/v1",
    kind: "IngressClass",
    metadata: { name, labels: { ingressclass: special, "special-label": "generic" } },
    spec: { controller: "example.com/controller" },
  });

  it(" should support creating IngressClass API operations", async () => {
    const special = uniqueName("ingressclass");
    const ic = col();
    await expectDiscovered(c, "networking.k8s.io", "v1", ["ingressclasses"]);
    const ic1 = await ic.create(ingressClass(`${special}-1`, special));
    await ic.create(ingressClass(`${special}-2`, special));
    await ic.create(ingressClass(`${special}-3`, special));
    expect((await ic.get(ic1.metadata.name)).metadata.uid).toBe(ic1.metadata.uid);
    const list = await ic.list("labelSelector=special-label%3Dgeneric");
    expect(list.items).toHaveLength(3);
    await patchAndUpdateWatched(
      c,
      ic,
      ic1.metadata.name,
      { resourceVersion: list.metadata.resourceVersion, labelSelector: `ingressclass=${special}` },
      { updatePatched: true },
    );
    await deleteOneThenCollection(ic, ic1.metadata.name, `labelSelector=ingressclass%3D${special}`, 2);
  });

  it("should allow IngressClass to have Namespace-scoped parameters", async () => {
    const special = uniqueName("ingressclass");
    const body = ingressClass(`${special}-ns`, special) as ReturnType<typeof ingressClass> & {
      spec: Record<string, unknown>;
    };
    body.spec.parameters = {
      scope: "Namespace",
      namespace: "foo-ns",
      kind: "fookind",
      name: "fooname",
      apiGroup: "example.com",
    };
    const created = await col().create(body);
    expect((created.spec?.parameters as { scope?: string } | undefined)?.scope).toBe("Namespace");
    await col().delete(created.metadata.name);
  });
});

describe("[sig-network] EndpointSlice (network/endpointslice.go)", () => {
  it("should support creating EndpointSlice API operations", async () => {
    const ns = await c.namespace("endpointslice");
    const special = uniqueName("eps");
    const col = collection(c, `/apis/discovery.k8s.io/v1/namespaces/${ns}/endpointslices`);
    const template = {
      apiVersion: "discovery.k8s.io/v1",
      kind: "EndpointSlice",
      metadata: { generateName: "e2e-example-ing", labels: { "special-label": special } },
      addressType: "IPv4",
      endpoints: [{ addresses: ["1.2.3.4", "5.6.7.8"] }, { addresses: ["2.2.3.4", "6.6.7.8"] }],
    };
    await expectDiscovered(c, "discovery.k8s.io", "v1", ["endpointslices"]);
    const created = await createThree(col, template);
    const label = `labelSelector=special-label%3D${special}`;
    const list = await col.list(label);
    expect(list.items).toHaveLength(3);
    const cluster = collection(c, "/apis/discovery.k8s.io/v1/endpointslices");
    expect((await cluster.list(label)).items).toHaveLength(3);
    await patchAndUpdateWatched(c, col, created.metadata.name, {
      resourceVersion: list.metadata.resourceVersion,
      labelSelector: `special-label=${special}`,
    });
    await deleteOneThenCollection(col, created.metadata.name, label, 2);
  });
});

describe("[sig-node] RuntimeClass (common/node/runtimeclass.go)", () => {
  it("should support RuntimeClasses API operations", async () => {
    const special = uniqueName("runtimeclass");
    const col = collection(c, "/apis/node.k8s.io/v1/runtimeclasses");
    const rc = (n: number) => ({
      apiVersion: "node.k8s.io/v1",
      kind: "RuntimeClass",
      metadata: { name: `${special}-conformance-runtime-class${n === 1 ? "" : n}`, labels: { test: special } },
      handler: `${special}-handler${n === 1 ? "" : n}`,
    });
    await expectDiscovered(c, "node.k8s.io", "v1", ["runtimeclasses"]);
    const created = await col.create(rc(1));
    expect((await c.raw("POST", col.base, rc(1))).status).toBe(409);
    await col.create(rc(2));
    const label = `labelSelector=test%3D${special}`;
    let sawAdded = false;
    await watchUntilAnnotated(c, col.base, { labelSelector: `test=${special}` }, "updated", async () => {
      await col.create(rc(3));
      expect((await col.get(created.metadata.name)).metadata.uid).toBe(created.metadata.uid);
      expect((await col.list(label)).items).toHaveLength(3);
      const patched = await col.mergePatch(created.metadata.name, { metadata: { annotations: { patched: "true" } } });
      expect(patched.metadata.annotations?.patched).toBe("true");
      patched.metadata.annotations = { ...patched.metadata.annotations, updated: "true" };
      expect((await col.update(patched)).metadata.annotations?.updated).toBe("true");
    }).then((events) => {
      sawAdded = events.some((e) => e.type === "ADDED");
    });
    expect(sawAdded).toBe(true);
    await deleteOneThenCollection(col, created.metadata.name, label, 2);
  });
});

describe("[sig-api-machinery] API priority and fairness (apimachinery/flowcontrol.go)", () => {
  /** The shared body of the FlowSchema and PriorityLevelConfiguration tests. */
  async function apiOperations(
    resource: "flowschemas" | "prioritylevelconfigurations",
    template: (labels: Record<string, string>) => unknown,
    specPatch: Record<string, unknown>,
    specUpdate: (o: Obj) => void,
    specCheck: (o: Obj, step: "patched" | "updated") => void,
  ) {
    await expectDiscovered(c, "flowcontrol.apiserver.k8s.io", "v1", [resource, `${resource}/status`]);
    const col = collection(c, `/apis/flowcontrol.apiserver.k8s.io/v1/${resource}`);
    const value = uniqueName("e2e");
    const labelKey = resource === "flowschemas" ? "example-e2e-fs-label" : "example-e2e-pl-label";
    const label = `labelSelector=${labelKey}%3D${value}`;
    const body = template({ [labelKey]: value });
    const created = await createThree(col, body);
    expect(created.metadata.resourceVersion).toMatch(/^[1-9][0-9]*$/);
    const list = await col.list(label);
    expect(list.items).toHaveLength(3);
    await patchAndUpdateWatched(
      c,
      col,
      created.metadata.name,
      { resourceVersion: list.metadata.resourceVersion, labelSelector: `${labelKey}=${value}` },
      {
        patch: { spec: specPatch },
        mutate: specUpdate,
        check: (o, step) => {
          specCheck(o, step);
          expect(BigInt(o.metadata.resourceVersion)).toBeGreaterThan(BigInt(created.metadata.resourceVersion));
        },
      },
    );
    const statusRead = await col.get(created.metadata.name, "status");
    expect(statusRead.apiVersion).toBe("flowcontrol.apiserver.k8s.io/v1");
    expect(statusRead.metadata.uid).toBe(created.metadata.uid);
    await patchAndUpdateStatusConditions(col, created.metadata.name, "PatchStatusFailed", "StatusUpdateFailed");
    await deleteOneThenCollection(col, created.metadata.name, label, 2);
  }

  it("should support FlowSchema API operations", async () => {
    await apiOperations(
      "flowschemas",
      (labels) => ({
        apiVersion: "flowcontrol.apiserver.k8s.io/v1",
        kind: "FlowSchema",
        metadata: { generateName: "e2e-example-fs-", labels },
        spec: {
          matchingPrecedence: 10000,
          priorityLevelConfiguration: { name: "global-default" },
          distinguisherMethod: { type: "ByUser" },
          rules: [
            {
              subjects: [{ kind: "User", user: { name: "example-e2e-non-existent-user" } }],
              nonResourceRules: [{ verbs: ["*"], nonResourceURLs: ["*"] }],
            },
          ],
        },
      }),
      { matchingPrecedence: 9999 },
      (o) => {
        (o.spec as { matchingPrecedence: number }).matchingPrecedence = 9000;
      },
      (o, step) => expect(o.spec?.matchingPrecedence).toBe(step === "patched" ? 9999 : 9000),
    );
  });

  it("should support PriorityLevelConfiguration API operations", async () => {
    await apiOperations(
      "prioritylevelconfigurations",
      (labels) => ({
        apiVersion: "flowcontrol.apiserver.k8s.io/v1",
        kind: "PriorityLevelConfiguration",
        metadata: { generateName: "e2e-example-pl-", labels },
        spec: { type: "Limited", limited: { nominalConcurrencyShares: 2, limitResponse: { type: "Reject" } } },
      }),
      { limited: { nominalConcurrencyShares: 4 } },
      (o) => {
        (o.spec as { limited: { nominalConcurrencyShares: number } }).limited.nominalConcurrencyShares = 6;
      },
      (o, step) =>
        expect((o.spec?.limited as { nominalConcurrencyShares?: number } | undefined)?.nominalConcurrencyShares).toBe(
          step === "patched" ? 4 : 6,
        ),
    );
  });
});

describe("[sig-auth] Certificates API [Privileged:ClusterAdmin] (auth/certificates.go)", () => {
  it("should support CSR API operations", async () => {
    const signerName = `example.com/e2e-${uniqueName("csr")}`;
    const col = collection(c, "/apis/certificates.k8s.io/v1/certificatesigningrequests");
    // a PEM CSR is opaque to the API server's storage; any base64 request the strategy accepts will do
    const request = Buffer.from(
      "-----BEGIN CERTIFICATE REQUEST-----\nMIIBVjCB/QIBADAaMRgwFgYDVQQDDA9lMmUuZXhhbXBsZS5jb20=\n-----END CERTIFICATE REQUEST-----\n",
    ).toString("base64");
    const template = {
      apiVersion: "certificates.k8s.io/v1",
      kind: "CertificateSigningRequest",
      metadata: { generateName: "e2e-example-csr-" },
      spec: {
        request,
        signerName,
        expirationSeconds: 3600,
        usages: ["digital signature", "key encipherment", "server auth"],
      },
    };
    await expectDiscovered(c, "certificates.k8s.io", "v1", [
      "certificatesigningrequests",
      "certificatesigningrequests/approval",
      "certificatesigningrequests/status",
    ]);
    await col.create(template);
    await col.create(template);
    const created = await col.create(template);
    const got = await col.get(created.metadata.name);
    expect(got.metadata.uid).toBe(created.metadata.uid);
    expect(got.spec?.expirationSeconds).toBe(3600);
    const field = `fieldSelector=spec.signerName%3D${encodeURIComponent(signerName)}`;
    const list = await col.list(field);
    expect(list.items).toHaveLength(3);
    await patchAndUpdateWatched(
      c,
      col,
      created.metadata.name,
      { resourceVersion: list.metadata.resourceVersion, fieldSelector: `metadata.name=${created.metadata.name}` },
      { updatePatched: true },
    );

    type Cond = { type: string };
    const conds = (o: Obj) => (o.status?.conditions ?? []) as Cond[];
    const approval = await col.get(created.metadata.name, "approval");
    expect(`${approval.apiVersion}/${approval.kind}`).toBe("certificates.k8s.io/v1/CertificateSigningRequest");
    expect(approval.metadata.uid).toBe(created.metadata.uid);
    const patchedApproval = await col.mergePatch(
      created.metadata.name,
      {
        metadata: { annotations: { patchedapproval: "true" } },
        status: { conditions: [{ type: "ApprovalPatch", status: "True", reason: "e2e" }] },
      },
      "approval",
    );
    expect(conds(patchedApproval).map((x) => x.type)).toEqual(["ApprovalPatch"]);
    expect(patchedApproval.metadata.annotations?.patchedapproval).toBe("true");
    patchedApproval.status = {
      ...patchedApproval.status,
      conditions: [
        ...conds(patchedApproval),
        { type: "Approved", status: "True", reason: "E2E", message: "Set from an e2e test" },
      ],
    };
    const updatedApproval = await col.update(patchedApproval, "approval");
    expect(conds(updatedApproval).map((x) => x.type)).toEqual(["ApprovalPatch", "Approved"]);

    const statusRead = await col.get(created.metadata.name, "status");
    expect(`${statusRead.apiVersion}/${statusRead.kind}`).toBe("certificates.k8s.io/v1/CertificateSigningRequest");
    expect(statusRead.metadata.uid).toBe(created.metadata.uid);
    const certificate = Buffer.from("-----BEGIN CERTIFICATE-----\nZTJl\n-----END CERTIFICATE-----\n").toString(
      "base64",
    );
    const patchedStatus = await col.mergePatch(
      created.metadata.name,
      { metadata: { annotations: { patchedstatus: "true" } }, status: { certificate } },
      "status",
    );
    expect(patchedStatus.status?.certificate).toBe(certificate);
    expect(patchedStatus.metadata.annotations?.patchedstatus).toBe("true");
    patchedStatus.status = {
      ...patchedStatus.status,
      conditions: [
        ...conds(patchedStatus),
        { type: "StatusUpdate", status: "True", reason: "E2E", message: "Set from an e2e test" },
      ],
    };
    const updatedStatus = await col.update(patchedStatus, "status");
    expect(conds(updatedStatus)).toHaveLength(conds(patchedStatus).length);
    expect(conds(updatedStatus).at(-1)?.type).toBe("StatusUpdate");

    await deleteOneThenCollection(col, created.metadata.name, field, 2);
  });
});

describe("[sig-api-machinery] ValidatingAdmissionPolicy [Privileged:ClusterAdmin] (apimachinery/validatingadmissionpolicy.go)", () => {
  /** Upstream accepts a deleted object that is still there, held by finalizers; none hold these here. */
  const heldByFinalizers = (o: Obj) =>
    o.metadata.deletionTimestamp !== undefined && (o.metadata.finalizers ?? []).length > 0;

  it("should support ValidatingAdmissionPolicy API operations", async () => {
    await expectDiscovered(c, "admissionregistration.k8s.io", "v1", [
      "validatingadmissionpolicies",
      "validatingadmissionpolicies/status",
    ]);
    const col = collection(c, "/apis/admissionregistration.k8s.io/v1/validatingadmissionpolicies");
    const value = uniqueName("vap");
    const label = `labelSelector=example-e2e-vap-label%3D${value}`;
    const template = {
      apiVersion: "admissionregistration.k8s.io/v1",
      kind: "ValidatingAdmissionPolicy",
      metadata: { generateName: "e2e-example-vap-", labels: { "example-e2e-vap-label": value } },
      spec: {
        validations: [{ expression: "object.spec.replicas <= 100" }],
        matchConstraints: {
          resourceRules: [
            { operations: ["CREATE"], apiGroups: ["apps"], apiVersions: ["v1"], resources: ["deployments"] },
          ],
        },
      },
    };
    const created = await createThree(col, template);
    const list = await col.list(label);
    await patchAndUpdateWatched(
      c,
      col,
      created.metadata.name,
      { resourceVersion: list.metadata.resourceVersion, labelSelector: `example-e2e-vap-label=${value}` },
      {
        patch: { spec: { failurePolicy: "Ignore" } },
        mutate: (o) => {
          (o.spec as { failurePolicy: string }).failurePolicy = "Fail";
        },
        check: (o, step) => expect(o.spec?.failurePolicy).toBe(step === "patched" ? "Ignore" : "Fail"),
      },
    );
    const statusRead = await col.get(created.metadata.name, "status");
    expect(`${statusRead.apiVersion}/${statusRead.kind}`).toBe(
      "admissionregistration.k8s.io/v1/ValidatingAdmissionPolicy",
    );
    expect(statusRead.metadata.uid).toBe(created.metadata.uid);
    // RFC 3339 seconds, as the wire keeps them.
    await patchAndUpdateStatusConditions(col, created.metadata.name, "PatchStatusFailed", "StatusUpdateFailed", {
      lastTransitionTime: new Date().toISOString().replace(/\.\d+Z$/, "Z"),
    });
    await deleteOneThenCollection(col, created.metadata.name, label, 2, (i) => !heldByFinalizers(i));
  });

  it("should support ValidatingAdmissionPolicyBinding API operations", async () => {
    await expectDiscovered(c, "admissionregistration.k8s.io", "v1", ["validatingadmissionpolicybindings"]);
    const col = collection(c, "/apis/admissionregistration.k8s.io/v1/validatingadmissionpolicybindings");
    const value = uniqueName("vapb");
    const label = `labelSelector=example-e2e-vapb-label%3D${value}`;
    const template = {
      apiVersion: "admissionregistration.k8s.io/v1",
      kind: "ValidatingAdmissionPolicyBinding",
      metadata: { generateName: "e2e-example-vapb-", labels: { "example-e2e-vapb-label": value } },
      spec: { policyName: "replicalimit-policy.example.com", validationActions: ["Deny"] },
    };
    const created = await createThree(col, template);
    const list = await col.list(label);
    await patchAndUpdateWatched(
      c,
      col,
      created.metadata.name,
      { resourceVersion: list.metadata.resourceVersion, labelSelector: `example-e2e-vapb-label=${value}` },
      {
        patch: { spec: { validationActions: ["Warn"] } },
        mutate: (o) => {
          (o.spec as { validationActions: string[] }).validationActions = ["Deny"];
        },
        check: (o, step) => expect(o.spec?.validationActions).toEqual([step === "patched" ? "Warn" : "Deny"]),
      },
    );
    await deleteOneThenCollection(col, created.metadata.name, label, 2, (i) => !heldByFinalizers(i));
  });
});

describe("[sig-network] ServiceCIDR and IPAddress API (network/service_cidrs.go)", () => {
  it("should support ServiceCIDR API operations", async () => {
    const col = collection(c, "/apis/networking.k8s.io/v1/servicecidrs");
    await col.get("kubernetes");
    const patched = await col.mergePatch("kubernetes", { metadata: { annotations: { patched: "true" } } });
    expect(patched.metadata.annotations?.patched).toBe("true");
    const updated = await retryOnConflict(col, "kubernetes", (o) => {
      o.metadata.annotations = { ...o.metadata.annotations, updated: "true" };
    });
    expect(updated.metadata.annotations?.updated).toBe("true");
    expect((await col.list("")).items.length).toBeGreaterThan(0);
    const stop = new AbortController();
    const watch = await fetch(`${c.url}${col.base}?watch=true`, { signal: stop.signal });
    expect(watch.status).toBe(200);
    stop.abort();
  });

  it("should support IPAddress API operations", async () => {
    const col = collection(c, "/apis/networking.k8s.io/v1/ipaddresses");
    const parentRef = { group: "mygroup", resource: "myresources", namespace: "foo", name: "bar" };
    const ip = { metadata: { name: "255.255.255.255", labels: { type: "broadcast" } }, spec: { parentRef } };
    const ipv6 = { metadata: { name: "fe80::42:1dff:fe84:f9e2", labels: { type: "link-local" } }, spec: { parentRef } };
    await col.create({ apiVersion: "networking.k8s.io/v1", kind: "IPAddress", ...ip });
    await col.create({ apiVersion: "networking.k8s.io/v1", kind: "IPAddress", ...ipv6 });
    const patched = await col.mergePatch(ip.metadata.name, { metadata: { annotations: { patched: "true" } } });
    expect(patched.metadata.annotations?.patched).toBe("true");
    const updated = await retryOnConflict(col, ip.metadata.name, (o) => {
      o.metadata.annotations = { ...o.metadata.annotations, updated: "true" };
    });
    expect(updated.metadata.annotations?.updated).toBe("true");
    await col.get(ip.metadata.name);
    expect((await col.list("labelSelector=type%3Dbroadcast")).items).toHaveLength(1);
    const stop = new AbortController();
    const watch = await fetch(`${c.url}${col.base}?watch=true&labelSelector=type%3Dbroadcast`, { signal: stop.signal });
    expect(watch.status).toBe(200);
    stop.abort();
    await col.delete(ip.metadata.name);
    await col.deleteCollection("labelSelector=type%3Dlink-local");
    expect((await col.list("labelSelector=type%3Dlink-local")).items).toEqual([]);
  });
});
