import { describe, expect, it } from "vitest";
import {
  OBJECT_TTL_ANNOTATION_KEY,
  TTL_BOUNDARIES_CURRENT,
  TTLController,
  ttlSecondsForClusterSize,
} from "./ttl-controller.js";

describe("TTLController", () => {
  it("steps up when the node count exceeds a row's maximum (the write-up's table)", () => {
    const cases: [number, number][] = [
      [0, 0],
      [100, 0],
      [101, 15],
      [500, 15],
      [501, 30],
      [1000, 30],
      [1001, 60],
      [2000, 60],
      [2001, 300],
      [10_000, 300],
      [10_001, 600],
    ];
    for (const [nodes, ttl] of cases) expect(ttlSecondsForClusterSize(nodes), `${nodes} nodes`).toBe(ttl);
    // today's upstream table stops at 300 s
    expect(ttlSecondsForClusterSize(10_001, TTL_BOUNDARIES_CURRENT)).toBe(300);
  });

  it("steps down only below the row's minimum (hysteresis)", () => {
    const c = new TTLController();
    for (let i = 0; i < 101; i++) c.addNode();
    expect(c.desiredTTLSeconds).toBe(15);
    for (let i = 0; i < 11; i++) c.deleteNode();
    expect(c.nodeCount).toBe(90);
    expect(c.desiredTTLSeconds).toBe(15);
    c.deleteNode();
    expect(c.desiredTTLSeconds).toBe(0);
    for (let i = 0; i < 200; i++) c.deleteNode();
    expect(c.nodeCount).toBe(0);
  });

  it("writes the annotation the kubelet reads, keeping the others", () => {
    const c = new TTLController();
    for (let i = 0; i < 600; i++) c.addNode();
    expect(c.annotate({ a: "b" })).toEqual({ a: "b", [OBJECT_TTL_ANNOTATION_KEY]: "30" });
    expect(OBJECT_TTL_ANNOTATION_KEY).toBe("node.alpha.kubernetes.io/ttl");
  });

  it("refuses a bad cluster size or an empty table", () => {
    expect(() => ttlSecondsForClusterSize(-1)).toThrow(/cluster size must be an integer ≥ 0, got -1/);
    expect(() => new TTLController([])).toThrow(/at least one boundary/);
  });
});
