import type { KubeObject } from "@informer-ts/apimachinery";
import { describe, expect, it } from "vitest";
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
    const added = csr({}, { conditions: [{ type: "Denied", status: "True" }] });
    preserveCsrApprovalConditions(added, csr({}, undefined));
    expect(added.status).toEqual({});
  });
});
