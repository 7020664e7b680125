import type { Pod } from "@informer-ts/client";
import { describe, expect, it } from "vitest";
import { admissionRejection, awaitsAdmission } from "./admission.js";

const pod = (
  name: string,
  o: { created?: string; hostPort?: number; hostIP?: string; phase?: string; started?: boolean } = {},
): Pod =>
  ({
    metadata: { name, uid: `uid-${name}`, creationTimestamp: o.created ?? "2026-01-01T00:00:00Z" },
    spec: {
      nodeName: "node-1",
      containers: [
        {
          name: "c",
          ports: [
            {
              containerPort: 80,
              ...(o.hostPort !== undefined && { hostPort: o.hostPort }),
              ...(o.hostIP !== undefined && { hostIP: o.hostIP }),
            },
          ],
        },
      ],
    },
    status: {
      ...(o.phase !== undefined && { phase: o.phase }),
      ...(o.started === true && { containerStatuses: [{ name: "c", state: { running: {} } }] }),
    },
  }) as unknown as Pod;

describe("kubelet admission (NodePorts)", () => {
  it("awaits admission only while bound, not deleting and not started", () => {
    expect(awaitsAdmission(pod("a", { phase: "Pending" }))).toBe(true);
    expect(awaitsAdmission(pod("a", { phase: "Running", started: true }))).toBe(false);
    const unbound = pod("a");
    (unbound.spec as { nodeName?: string }).nodeName = "";
    expect(awaitsAdmission(unbound)).toBe(false);
  });

  it("lists the node's pods only for a pod that binds a host port", () => {
    let listed = 0;
    const list = () => {
      listed++;
      return [pod("o", { hostPort: 21017, phase: "Running", started: true })];
    };
    expect(admissionRejection(pod("p", { phase: "Pending" }), list)).toBeUndefined();
    expect(listed).toBe(0);
    expect(admissionRejection(pod("p", { hostPort: 21017, phase: "Pending" }), list)?.reason).toBe("NodePorts");
    expect(listed).toBe(1);
  });

  it.each([
    ["no host port", { phase: "Pending" }, [pod("o", { hostPort: 21017, phase: "Running", started: true })], undefined],
    [
      "the port of a running pod",
      { hostPort: 21017, phase: "Pending" },
      [pod("o", { hostPort: 21017, phase: "Running", started: true })],
      "NodePorts",
    ],
    [
      "another port",
      { hostPort: 21018, phase: "Pending" },
      [pod("o", { hostPort: 21017, phase: "Running", started: true })],
      undefined,
    ],
    [
      "the port on another host IP",
      { hostPort: 21017, hostIP: "10.0.0.2", phase: "Pending" },
      [pod("o", { hostPort: 21017, hostIP: "10.0.0.1", phase: "Running", started: true })],
      undefined,
    ],
    [
      "the port of a failed pod",
      { hostPort: 21017, phase: "Pending" },
      [pod("o", { hostPort: 21017, phase: "Failed" })],
      undefined,
    ],
    [
      "the port of an older pod not started yet",
      { hostPort: 21017, phase: "Pending", created: "2026-01-01T00:00:05Z" },
      [pod("o", { hostPort: 21017, phase: "Pending" })],
      "NodePorts",
    ],
    [
      "the port of a newer pod not started yet (admitted after this one)",
      { hostPort: 21017, phase: "Pending" },
      [pod("o", { hostPort: 21017, phase: "Pending", created: "2026-01-01T00:00:05Z" })],
      undefined,
    ],
  ] as const)("a pod wanting %s", (_what, o, others, reason) => {
    const p = pod("p", o);
    const r = admissionRejection(p, [p, ...others]);
    expect(r?.reason).toBe(reason);
    if (r !== undefined) expect(r.message).toMatch(/^Pod was rejected: Predicate NodePorts failed: /);
  });
});
