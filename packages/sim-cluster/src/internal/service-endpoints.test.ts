import type { Pod, Service } from "@informer-ts/client";
import { describe, expect, it } from "vitest";
import { desiredSubsets } from "../endpoints/endpoints-controller.js";
import { desiredSlices } from "../endpointslice/endpointslice-controller.js";
import { findPort } from "./service-endpoints.js";

const pod = (containers: Array<{ ports?: Array<{ name?: string; containerPort: number; protocol?: string }> }>): Pod =>
  ({ spec: { containers: containers.map((c, i) => ({ name: `c${i}`, image: "x", ...c })) } }) as Pod;

describe("TestFindPort (pkg/api/v1/pod/util_test.go)", () => {
  const cases: Array<{
    name: string;
    pod: Pod;
    port: { targetPort: number | string; protocol?: string };
    want: number | undefined;
  }> = [
    { name: "valid int, no ports", pod: pod([{}]), port: { targetPort: 93 }, want: 93 },
    {
      name: "valid int, with ports",
      pod: pod([
        {
          ports: [
            { name: "", containerPort: 11 },
            { name: "p", containerPort: 22 },
          ],
        },
      ]),
      port: { targetPort: 93 },
      want: 93,
    },
    { name: "valid str, no ports", pod: pod([{}]), port: { targetPort: "p" }, want: undefined },
    {
      name: "valid str, one ctr with ports",
      pod: pod([
        {
          ports: [
            { name: "", containerPort: 11 },
            { name: "q", containerPort: 33 },
            { name: "p", containerPort: 22 },
          ],
        },
      ]),
      port: { targetPort: "q" },
      want: 33,
    },
    {
      name: "valid str, two ctr with ports",
      pod: pod([
        {},
        {
          ports: [
            { name: "", containerPort: 11 },
            { name: "q", containerPort: 33 },
          ],
        },
      ]),
      port: { targetPort: "q" },
      want: 33,
    },
    {
      name: "valid str, two ctr with same port",
      pod: pod([
        {},
        {
          ports: [
            { name: "q", containerPort: 22 },
            { name: "q", containerPort: 33 },
          ],
        },
      ]),
      port: { targetPort: "q" },
      want: 22,
    },
    {
      name: "valid str, invalid protocol",
      pod: pod([{ ports: [{ name: "a", containerPort: 11, protocol: "snmp" }] }]),
      port: { targetPort: "a" },
      want: undefined,
    },
    {
      name: "valid hostPort",
      pod: pod([{ ports: [{ name: "a", containerPort: 11, protocol: "TCP" }] }]),
      port: { targetPort: "a" },
      want: 11,
    },
  ];
  for (const tc of cases) {
    it(tc.name, () => {
      expect(findPort(tc.pod, tc.port)).toBe(tc.want);
    });
  }
});

function readyPod(name: string, ip: string, ready: boolean): Pod {
  return {
    metadata: { name, namespace: "ns", uid: `uid-${name}`, labels: { foo: "bar" } },
    spec: { nodeName: "n", containers: [{ name: "c", image: "x", ports: [{ name: "http", containerPort: 8080 }] }] },
    status: { phase: "Running", podIP: ip, conditions: [{ type: "Ready", status: ready ? "True" : "False" }] },
  } as Pod;
}

const svc = (extra: Record<string, unknown> = {}): Service =>
  ({
    metadata: { name: "foo", namespace: "ns" },
    spec: { selector: { foo: "bar" }, ports: [{ port: 80, targetPort: "http" }], ...extra },
  }) as Service;

describe("desiredSubsets (endpoints_controller_test.go)", () => {
  it("ready pods in addresses, unready in notReadyAddresses, sorted by IP", () => {
    const { subsets, truncated } = desiredSubsets(svc(), [
      readyPod("b", "1.2.3.5", true),
      readyPod("a", "1.2.3.4", true),
      readyPod("c", "1.2.3.6", false),
    ]);
    expect(truncated).toBe(false);
    expect(subsets).toHaveLength(1);
    expect(subsets[0]?.addresses?.map((a) => a.ip)).toEqual(["1.2.3.4", "1.2.3.5"]);
    expect(subsets[0]?.notReadyAddresses?.map((a) => a.ip)).toEqual(["1.2.3.6"]);
    expect(subsets[0]?.ports).toEqual([{ port: 8080, protocol: "TCP" }]);
  });

  it("publishNotReadyAddresses makes every address ready", () => {
    const { subsets } = desiredSubsets(svc({ publishNotReadyAddresses: true }), [readyPod("c", "1.2.3.6", false)]);
    expect(subsets[0]?.addresses?.map((a) => a.ip)).toEqual(["1.2.3.6"]);
  });

  it("a pod without an IP is left out; over capacity truncates", () => {
    const noIP = readyPod("x", "", true);
    expect(desiredSubsets(svc(), [noIP]).subsets).toEqual([]);
    const many = Array.from({ length: 5 }, (_, i) => readyPod(`p${i}`, `10.0.0.${i}`, true));
    const { subsets, truncated } = desiredSubsets(svc(), many, 3);
    expect(truncated).toBe(true);
    expect(subsets[0]?.addresses).toHaveLength(3);
  });
});

describe("desiredSlices (endpointslice reconciler_test.go)", () => {
  it("one pod gives one slice with its conditions; none gives the placeholder", () => {
    const [s] = desiredSlices(svc(), [readyPod("a", "1.2.3.4", true)]);
    expect(s?.ports).toEqual([{ name: "", port: 8080, protocol: "TCP" }]);
    expect(s?.endpoints[0]).toMatchObject({
      addresses: ["1.2.3.4"],
      conditions: { ready: true, serving: true, terminating: false },
    });
    expect(desiredSlices(svc(), [])).toEqual([{ ports: [], endpoints: [] }]);
  });
});
