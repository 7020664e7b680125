// Ports of pkg/apis/core/validation/validation_test.go cases for the parts of a pod spec: TestValidateVolumes,
// TestValidateVolumeMounts, TestValidateProbe / TestValidateHandler and TestValidateAffinity (the basics enforced).
import { fieldErrorString } from "@informer-ts/apimachinery";
import { describe, expect, it } from "vitest";
import { validateAffinity } from "./affinity.js";
import { validateProbe } from "./probes.js";
import { validateVolumeMounts, validateVolumes } from "./volumes.js";

const strings = (errs: Parameters<typeof fieldErrorString>[0][]) => errs.map(fieldErrorString);

describe("TestValidateVolumes", () => {
  it("valid: names unique DNS labels, one source each", () => {
    const r = validateVolumes(
      [
        { name: "abc", hostPath: { path: "/mnt/path1" } },
        { name: "123", emptyDir: {} },
        { name: "abc-123", secret: { secretName: "s" } },
      ],
      "spec.volumes",
    );
    expect(r.errs).toEqual([]);
    expect([...r.names]).toEqual(["abc", "123", "abc-123"]);
  });
  it("zero-length name, bad name, duplicate name", () => {
    const r = validateVolumes(
      [{ emptyDir: {} }, { name: "-/", emptyDir: {} }, { name: "abc", emptyDir: {} }, { name: "abc", emptyDir: {} }],
      "spec.volumes",
    );
    const got = strings(r.errs);
    expect(got[0]).toBe("spec.volumes[0].name: Required value");
    expect(got[1]?.startsWith('spec.volumes[1].name: Invalid value: "-/": a lowercase RFC 1123 label')).toBe(true);
    expect(got[2]).toBe('spec.volumes[3].name: Duplicate value: "abc"');
  });
  it("no volume type; more than one volume type", () => {
    expect(strings(validateVolumes([{ name: "a" }], "spec.volumes").errs)).toEqual([
      "spec.volumes[0]: Required value: must specify a volume type",
    ]);
    expect(
      strings(validateVolumes([{ name: "a", hostPath: { path: "/" }, emptyDir: {} }], "spec.volumes").errs),
    ).toEqual(["spec.volumes[0].emptyDir: Forbidden: may not specify more than 1 volume type"]);
  });
});

describe("TestValidateVolumeMounts", () => {
  it("a mount names a volume of the pod and has a path", () => {
    const vols = new Set(["abc"]);
    expect(validateVolumeMounts([{ name: "abc", mountPath: "/foo" }], vols, "m")).toEqual([]);
    expect(
      strings(
        validateVolumeMounts([{ mountPath: "/foo" }, { name: "x", mountPath: "/x" }, { name: "abc" }], vols, "m"),
      ),
    ).toEqual(["m[0].name: Required value", "m[1].name: Not found", "m[2].mountPath: Required value"]);
  });
});

describe("TestValidateProbe / TestValidateHandler", () => {
  it("valid: one handler, counts in range", () => {
    expect(
      validateProbe(
        { httpGet: { path: "/", port: 80 }, initialDelaySeconds: 0, periodSeconds: 10, successThreshold: 1 },
        "p",
        true,
      ),
    ).toEqual([]);
    expect(validateProbe(undefined, "p", true)).toEqual([]);
  });
  it("no handler; two handlers", () => {
    expect(strings(validateProbe({ periodSeconds: 1 }, "p", false))).toEqual([
      "p: Required value: must specify a handler type",
    ]);
    expect(strings(validateProbe({ exec: { command: ["x"] }, tcpSocket: { port: 1 } }, "p", false))).toEqual([
      "p.tcpSocket: Forbidden: may not specify more than 1 handler type",
    ]);
  });
  it("negative counts; liveness successThreshold must be 1; probe grace period > 0", () => {
    expect(
      strings(
        validateProbe(
          {
            exec: { command: ["x"] },
            initialDelaySeconds: -1,
            timeoutSeconds: -1,
            successThreshold: 2,
            terminationGracePeriodSeconds: 0,
          },
          "p",
          true,
        ),
      ),
    ).toEqual([
      "p.initialDelaySeconds: Invalid value: -1: must be greater than or equal to 0",
      "p.timeoutSeconds: Invalid value: -1: must be greater than or equal to 0",
      "p.successThreshold: Invalid value: 2: must be 1",
      "p.terminationGracePeriodSeconds: Invalid value: 0: must be greater than 0",
    ]);
    expect(validateProbe({ exec: { command: ["x"] }, successThreshold: 2 }, "p", false)).toEqual([]);
  });
});

describe("TestValidateAffinity", () => {
  const req = "a.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms";
  it("valid: node affinity with In/Exists/Gt, pod affinity with a topology key, weights in range", () => {
    expect(
      validateAffinity(
        {
          nodeAffinity: {
            requiredDuringSchedulingIgnoredDuringExecution: {
              nodeSelectorTerms: [
                {
                  matchExpressions: [
                    { key: "key2", operator: "In", values: ["value1", "value2"] },
                    { key: "key3", operator: "Exists" },
                    { key: "key4", operator: "Gt", values: ["5"] },
                  ],
                },
              ],
            },
            preferredDuringSchedulingIgnoredDuringExecution: [
              { weight: 10, preference: { matchExpressions: [{ key: "foo", operator: "In", values: ["bar"] }] } },
            ],
          },
          podAntiAffinity: {
            preferredDuringSchedulingIgnoredDuringExecution: [
              { weight: 10, podAffinityTerm: { topologyKey: "zone", labelSelector: {} } },
            ],
          },
        },
        "a",
      ),
    ).toEqual([]);
  });
  it("invalid: empty required terms, bad operators and values, weight out of range, empty topology key", () => {
    expect(
      strings(
        validateAffinity(
          { nodeAffinity: { requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: [] } } },
          "a",
        ),
      ),
    ).toEqual([`${req}: Required value: must have at least one node selector term`]);
    const expr = (e: Record<string, unknown>) => ({
      nodeAffinity: {
        requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: [{ matchExpressions: [e] }] },
      },
    });
    const at = `${req}[0].matchExpressions[0]`;
    expect(strings(validateAffinity(expr({ key: "k", operator: "In" }), "a"))).toEqual([
      `${at}.values: Required value: must be specified when \`operator\` is 'In' or 'NotIn'`,
    ]);
    expect(strings(validateAffinity(expr({ key: "k", operator: "Exists", values: ["v"] }), "a"))).toEqual([
      `${at}.values: Forbidden: may not be specified when \`operator\` is 'Exists' or 'DoesNotExist'`,
    ]);
    expect(strings(validateAffinity(expr({ key: "k", operator: "Lt", values: ["1", "2"] }), "a"))).toEqual([
      `${at}.values: Required value: must be specified single value when \`operator\` is 'Lt' or 'Gt'`,
    ]);
    expect(strings(validateAffinity(expr({ key: "k", operator: "Foo", values: ["v"] }), "a"))).toEqual([
      `${at}.operator: Invalid value: "Foo": not a valid selector operator`,
    ]);
    expect(
      strings(
        validateAffinity(
          {
            podAffinity: {
              preferredDuringSchedulingIgnoredDuringExecution: [{ weight: 120, podAffinityTerm: { topologyKey: "" } }],
            },
          },
          "a",
        ),
      ),
    ).toEqual([
      "a.podAffinity.preferredDuringSchedulingIgnoredDuringExecution[0].weight: Invalid value: 120: must be in the range 1-100",
      "a.podAffinity.preferredDuringSchedulingIgnoredDuringExecution[0].podAffinityTerm.topologyKey: Required value: can not be empty",
    ]);
  });
});
