import type { KubeObject } from "@informer-ts/apimachinery";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { type ContainerWorld, containerOutput } from "./container-output.js";
import { parseQuantityExact, resourceFieldValue } from "./resource-field.js";

const node = {
  metadata: { name: "n1" },
  status: { allocatable: { cpu: "32", memory: "256Gi", "ephemeral-storage": "100Gi" } },
} as unknown as KubeObject;
const world: ContainerWorld = {
  configMap: () => undefined,
  secret: () => undefined,
  token: () => undefined,
  node: (name) => (name === "n1" ? node : undefined),
};
const resources = {
  requests: { cpu: "250m", memory: "32Mi" },
  limits: { cpu: "1250m", memory: "64Mi" },
};
function pod(container: Record<string, unknown>, spec: Record<string, unknown> = {}): KubeObject {
  return {
    metadata: { name: "p", namespace: "ns", uid: "u-1" },
    spec: { nodeName: "n1", containers: [{ name: "c", image: "busybox", ...container }], ...spec },
    status: { podIP: "10.0.0.7" },
  } as unknown as KubeObject;
}
const env = (name: string, resource: string, divisor?: string, containerName?: string) => ({
  name,
  valueFrom: {
    resourceFieldRef: {
      resource,
      ...(divisor !== undefined && { divisor }),
      ...(containerName !== undefined && { containerName }),
    },
  },
});

describe("resourceFieldRef (the kubelet's downward API resources)", () => {
  // test/e2e/common/node/downwardapi.go: "should provide container's limits.cpu/memory and requests.cpu/memory as env vars"
  it("env: limits and requests rounded up to whole divisors (default 1)", () => {
    const lines = containerOutput(
      pod({
        command: ["env"],
        resources,
        env: [
          env("CPU_LIMIT", "limits.cpu"),
          env("MEMORY_LIMIT", "limits.memory"),
          env("CPU_REQUEST", "requests.cpu"),
          env("MEMORY_REQUEST", "requests.memory"),
          env("CPU_MILLI", "limits.cpu", "1m"),
          env("MEMORY_MI", "requests.memory", "1Mi"),
        ],
      }),
      "c",
      world,
    );
    expect(lines).toEqual(
      expect.arrayContaining([
        "CPU_LIMIT=2",
        "MEMORY_LIMIT=67108864",
        "CPU_REQUEST=1",
        "MEMORY_REQUEST=33554432",
        "CPU_MILLI=1250",
        "MEMORY_MI=32",
      ]),
    );
  });

  // downwardapi.go: "should provide default limits.cpu/memory from node allocatable"
  it("env: unset limits read the node's allocatable; without a known node they read 0", () => {
    const c = { command: ["env"], env: [env("CPU_LIMIT", "limits.cpu"), env("MEMORY_LIMIT", "limits.memory")] };
    expect(containerOutput(pod(c), "c", world)).toEqual(
      expect.arrayContaining(["CPU_LIMIT=32", `MEMORY_LIMIT=${256 * 2 ** 30}`]),
    );
    expect(containerOutput(pod(c, { nodeName: "elsewhere" }), "c", world)).toEqual(
      expect.arrayContaining(["CPU_LIMIT=0", "MEMORY_LIMIT=0"]),
    );
  });

  it("an unset request reads the container's own limit (pod defaulting), else 0; another container by name", () => {
    const p = pod(
      { command: ["env"], env: [env("R", "requests.cpu", "1m"), env("SIDE", "limits.memory", "1Ki", "side")] },
      {
        containers: [
          { name: "c", image: "busybox", command: ["env"], resources: { limits: { cpu: "500m" } } },
          { name: "side", image: "busybox", resources: { limits: { memory: "1Mi" } } },
        ],
      },
    );
    const c = (p.spec as { containers: Record<string, unknown>[] }).containers[0]!;
    expect(resourceFieldValue(p, c, { resource: "requests.cpu", divisor: "1m" }, node)).toBe("500");
    expect(resourceFieldValue(p, c, { resource: "requests.memory" }, node)).toBe("0");
    expect(resourceFieldValue(p, c, { resource: "limits.memory", divisor: "1Ki", containerName: "side" }, node)).toBe(
      "1024",
    );
    expect(resourceFieldValue(p, c, { resource: "limits.cpu", containerName: "nope" }, node)).toBeUndefined();
    expect(resourceFieldValue(p, c, { resource: "limits.gpu" }, node)).toBeUndefined();
    expect(resourceFieldValue(p, c, { resource: "status.cpu" }, node)).toBeUndefined();
  });

  // test/e2e/common/storage/downwardapi_volume.go: "should provide container's cpu limit" (and memory, requests)
  it("downwardAPI volume files with resourceFieldRef (containerName, divisor)", () => {
    const lines = containerOutput(
      pod(
        {
          command: ["cat", "/etc/podinfo/cpu_limit", "/etc/podinfo/memory_request"],
          resources,
          volumeMounts: [{ name: "podinfo", mountPath: "/etc/podinfo" }],
        },
        {
          volumes: [
            {
              name: "podinfo",
              downwardAPI: {
                items: [
                  {
                    path: "cpu_limit",
                    resourceFieldRef: { containerName: "c", resource: "limits.cpu", divisor: "1m" },
                  },
                  {
                    path: "memory_request",
                    resourceFieldRef: { containerName: "c", resource: "requests.memory", divisor: "1Mi" },
                  },
                ],
              },
            },
          ],
        },
      ),
      "c",
      world,
    );
    expect(lines).toEqual(["1250", "32"]);
  });

  it("property: cpu in millicores with divisor 1m is exact; with divisor 1 it is the ceiling in cores", () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 1_000_000 }), (milli) => {
        const c = { name: "c", resources: { limits: { cpu: `${milli}m` } } };
        const p = pod({}, { containers: [c] });
        expect(resourceFieldValue(p, c, { resource: "limits.cpu", divisor: "1m" }, undefined)).toBe(String(milli));
        expect(resourceFieldValue(p, c, { resource: "limits.cpu" }, undefined)).toBe(String(Math.ceil(milli / 1000)));
      }),
    );
  });

  it("parseQuantityExact reads decimal, binary and exponent forms, and nothing else", () => {
    expect(parseQuantityExact("1.5")).toEqual({ num: 15n, den: 10n });
    expect(parseQuantityExact("2Ki")).toEqual({ num: 2048n, den: 1n });
    expect(parseQuantityExact("1e3")).toEqual({ num: 1000n, den: 1n });
    expect(parseQuantityExact("5m")).toEqual({ num: 5n, den: 1000n });
    expect(parseQuantityExact("12 cores")).toBeUndefined();
    expect(parseQuantityExact(undefined)).toBeUndefined();
  });
});
