import type { KubeObject } from "@informer-ts/apimachinery";
import { FakeClock } from "@informer-ts/clock";
import { describe, expect, it } from "vitest";
import { validateCsrConditionsUpdate } from "../admission/validation/certificates.js";
import { SimApiServer } from "../sim-apiserver.js";
import { failure } from "../status-failure.test-util.js";
import { prepareForCsrApprovalUpdate, preserveCsrApprovalConditions } from "./csr-approval.js";

// upstream: pkg/registry/certificates/certificates/strategy_test.go (TestStrategyPrepareForUpdate)
const csr = (spec: Record<string, unknown>, status: Record<string, unknown> | undefined): KubeObject => ({
  apiVersion: "certificates.k8s.io/v1",
  kind: "CertificateSigningRequest",
  metadata: { name: "x" },
  spec,
  ...(status !== undefined && { status }),
});
const approved = { type: "Approved", status: "True", reason: "old" };
/** A base64 PEM request: the simulator's storage treats it as opaque. */
const REQUEST = Buffer.from("-----BEGIN CERTIFICATE REQUEST-----\nAAAA\n-----END CERTIFICATE REQUEST-----\n").toString(
  "base64",
);

describe("CertificateSigningRequest strategies (strategy.go)", () => {
  it("TestStrategyPrepareForUpdate: approval keeps spec and certificate, takes the conditions", () => {
    const old = csr({ signerName: "a" }, { certificate: "Y2VydA==", conditions: [] });
    const next = csr({ signerName: "changed" }, { certificate: "b3RoZXI=", conditions: [approved] });
    const out = prepareForCsrApprovalUpdate(next, old);
    expect(out.spec).toEqual({ signerName: "a" });
    expect(out.status).toEqual({ certificate: "Y2VydA==", conditions: [approved] });
  });

  it("TestStrategyPrepareForUpdate: status keeps the stored Approved/Denied instances", () => {
    const old = csr({}, { conditions: [approved] });
    const changed = csr(
      {},
      {
        conditions: [
          { ...approved, reason: "new" },
          { type: "Failed", status: "True" },
        ],
      },
    );
    preserveCsrApprovalConditions(changed, old);
    expect(changed.status).toEqual({ conditions: [approved, { type: "Failed", status: "True" }] });
    // A changed count is left for validation's 422.
    const added = csr({}, { conditions: [{ type: "Denied", status: "True" }] });
    preserveCsrApprovalConditions(added, csr({}, undefined));
    expect(added.status).toEqual({ conditions: [{ type: "Denied", status: "True" }] });
  });
});

// upstream: pkg/apis/certificates/validation/validation_test.go (TestValidateCertificateSigningRequestUpdate /
// TestValidateCertificateSigningRequestStatusUpdate: the condition cases)
describe("validateCsrConditionsUpdate (validation.go)", () => {
  const cond = (type: string) => ({ type, status: "True" });
  it.each([
    [
      "add Approved condition",
      [],
      [cond("Approved")],
      "status",
      ['updates may not add a condition of type "Approved"'],
    ],
    ["add Denied condition", [], [cond("Denied")], "status", ['updates may not add a condition of type "Denied"']],
    [
      "remove Approved condition",
      [cond("Approved")],
      [],
      "status",
      ['updates may not remove a condition of type "Approved"'],
    ],
    [
      "remove Failed condition",
      [cond("Failed")],
      [],
      "approval",
      ['updates may not remove a condition of type "Failed"'],
    ],
    ["add Failed condition through status", [], [cond("Failed")], "status", []],
    ["add Approved condition through approval", [], [cond("Approved")], "approval", []],
  ])("%s", (_name, oldConds, newConds, sub, want) => {
    const errs = validateCsrConditionsUpdate(csr({}, { conditions: newConds }), csr({}, { conditions: oldConds }), sub);
    expect(errs.map((e) => e.detail)).toEqual(want);
    for (const e of errs) expect(e).toMatchObject({ type: "FieldValueForbidden", field: "status.conditions" });
  });
});

describe("CertificateSigningRequest /status through the engine", () => {
  it("a /status write that adds Approved is a 422 and changes nothing; /approval may", async () => {
    const e = new SimApiServer({ clock: new FakeClock(), progressNotifyIntervalMs: 0, compactionIntervalMs: 0 });
    const CSR = "certificatesigningrequests.certificates.k8s.io";
    const created = await e.create(CSR, "", {
      metadata: { name: "x" },
      spec: { request: REQUEST, signerName: "example.com/signer", usages: ["digital signature"] },
    } as KubeObject);
    const approvedBody = { ...created, status: { conditions: [{ type: "Approved", status: "True", reason: "R" }] } };
    const s = await failure(e.update(CSR, "", "x", approvedBody, { subresource: "status" }));
    expect(s.code).toBe(422);
    expect(s.message).toBe(
      'CertificateSigningRequest.certificates.k8s.io "x" is invalid: status.conditions: Forbidden: updates may not add a condition of type "Approved"',
    );
    expect((await e.get(CSR, "", "x")).status).toBeUndefined();
    const approved = await e.update(CSR, "", "x", approvedBody, { subresource: "approval" });
    expect((approved.status as { conditions: unknown[] }).conditions).toHaveLength(1);
  });
});
