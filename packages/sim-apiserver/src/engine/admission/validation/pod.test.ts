// Ports of pkg/apis/core/validation's pod and service cases (validation_test.go: TestValidatePodSpec,
// TestValidateContainers, TestValidateRestartPolicy, TestValidateDNSPolicy, TestValidateService,
// TestValidateServiceUpdate, TestValidateLeaseSpec) for the essentials the simulator enforces.
import { fieldErrorString, type KubeObject } from "@informer-ts/apimachinery";
import { describe, expect, it } from "vitest";
import { validateLease } from "./lease.js";
import { validatePodSpec } from "./pod.js";
import { validateService, validateServiceUpdate } from "./service.js";

const strings = (errs: ReturnType<typeof validatePodSpec>) => errs.map(fieldErrorString);

describe("TestValidatePodSpec / TestValidateContainers", () => {
  it("valid: one container with an image", () => {
    expect(validatePodSpec({ containers: [{ name: "c", image: "nginx" }], restartPolicy: "Never" }, "spec")).toEqual(
      [],
    );
  });
  it("no containers, no name, no image, duplicate names across init containers", () => {
    expect(strings(validatePodSpec({}, "spec"))).toEqual(["spec.containers: Required value"]);
    expect(
      strings(
        validatePodSpec(
          { containers: [{ image: "x" }, { name: "a" }], initContainers: [{ name: "a", image: "y" }] },
          "spec",
        ),
      ),
    ).toEqual([
      "spec.containers[0].name: Required value",
      "spec.containers[1].image: Required value",
      'spec.initContainers[0].name: Duplicate value: "a"',
    ]);
  });
  it("container names are DNS labels; ports 1..65535 with a known protocol", () => {
    const errs = validatePodSpec(
      {
        containers: [
          { name: "Web", image: "x", ports: [{ containerPort: 0 }, { containerPort: 80, protocol: "HTTP" }] },
        ],
      },
      "spec",
    );
    expect(errs.map((e) => e.field)).toEqual([
      "spec.containers[0].name",
      "spec.containers[0].ports[0].containerPort",
      "spec.containers[0].ports[1].protocol",
    ]);
    expect(fieldErrorString(errs[1]!)).toBe(
      "spec.containers[0].ports[0].containerPort: Invalid value: 0: must be between 1 and 65535, inclusive",
    );
  });
  it("TestValidateRestartPolicy / TestValidateDNSPolicy / imagePullPolicy", () => {
    expect(
      strings(
        validatePodSpec(
          {
            containers: [{ name: "c", image: "x", imagePullPolicy: "Sometimes" }],
            restartPolicy: "Maybe",
            dnsPolicy: "Cloud",
          },
          "spec",
        ),
      ),
    ).toEqual([
      'spec.containers[0].imagePullPolicy: Unsupported value: "Sometimes": supported values: "Always", "IfNotPresent", "Never"',
      'spec.restartPolicy: Unsupported value: "Maybe": supported values: "Always", "OnFailure", "Never"',
      'spec.dnsPolicy: Unsupported value: "Cloud": supported values: "ClusterFirstWithHostNet", "ClusterFirst", "Default", "None"',
    ]);
  });
  it("terminationGracePeriodSeconds ≥ 0, activeDeadlineSeconds > 0", () => {
    const errs = validatePodSpec(
      { containers: [{ name: "c", image: "x" }], terminationGracePeriodSeconds: -1, activeDeadlineSeconds: 0 },
      "spec",
    );
    expect(errs.map((e) => e.field)).toEqual(["spec.terminationGracePeriodSeconds", "spec.activeDeadlineSeconds"]);
  });
});

const svc = (spec: Record<string, unknown>): KubeObject => ({ metadata: { name: "s", namespace: "default" }, spec });

describe("TestValidateService", () => {
  it("valid ClusterIP, headless without ports, ExternalName", () => {
    expect(
      validateService(svc({ type: "ClusterIP", ports: [{ port: 80, protocol: "TCP", targetPort: 8080 }] })),
    ).toEqual([]);
    expect(validateService(svc({ clusterIP: "None" }))).toEqual([]);
    expect(validateService(svc({ type: "ExternalName", externalName: "example.com" }))).toEqual([]);
  });
  it("missing ports, bad port, bad protocol, names required and unique with several ports", () => {
    expect(strings(validateService(svc({})))).toEqual(["spec.ports: Required value"]);
    expect(
      strings(
        validateService(
          svc({
            ports: [
              { port: 0 },
              { name: "a", port: 80, protocol: "ICMP" },
              { name: "a", port: 81, targetPort: "Not_A_Name" },
            ],
          }),
        ),
      ),
    ).toEqual([
      "spec.ports[0].name: Required value",
      "spec.ports[0].port: Invalid value: 0: must be between 1 and 65535, inclusive",
      'spec.ports[1].protocol: Unsupported value: "ICMP": supported values: "SCTP", "TCP", "UDP"',
      'spec.ports[2].name: Duplicate value: "a"',
      'spec.ports[2].targetPort: Invalid value: "Not_A_Name": must contain only alpha-numeric characters (a-z, 0-9), and hyphens (-)',
    ]);
    expect(validateService(svc({ type: "Magic", ports: [{ port: 1 }] })).map((e) => e.field)).toEqual(["spec.type"]);
  });
});

describe("TestValidateServiceUpdate", () => {
  it("the cluster IP may not change once set", () => {
    const old = svc({ clusterIP: "10.96.0.10", ports: [{ port: 80 }] });
    expect(validateServiceUpdate(svc({ clusterIP: "10.96.0.10", ports: [{ port: 81 }] }), old)).toEqual([]);
    expect(strings(validateServiceUpdate(svc({ clusterIP: "10.96.0.11", ports: [{ port: 80 }] }), old))).toEqual([
      'spec.clusterIPs[0]: Invalid value: "10.96.0.11": may not change once set',
    ]);
  });
});

describe("TestValidateLeaseSpec", () => {
  it("leaseDurationSeconds > 0, leaseTransitions ≥ 0", () => {
    const lease = (spec: Record<string, unknown>): KubeObject => ({ metadata: { name: "l" }, spec });
    expect(validateLease(lease({ holderIdentity: "a", leaseDurationSeconds: 15, leaseTransitions: 0 }))).toEqual([]);
    expect(strings(validateLease(lease({ leaseDurationSeconds: 0, leaseTransitions: -1 })))).toEqual([
      "spec.leaseDurationSeconds: Invalid value: 0: must be greater than 0",
      "spec.leaseTransitions: Invalid value: -1: must be greater than or equal to 0",
    ]);
  });
});
