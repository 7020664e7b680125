import { describe, expect, it } from "vitest";
import {
  cacheStrategyRead,
  KUBELET_RELEASE_SWITCHES,
  kubeletMinorVersion,
  kubeletRelease,
  kubeletVersionOfUserAgent,
} from "./kubelet-release.js";

describe("kubeletRelease", () => {
  it("switches where upstream did: registration on every sync from 1.22, invalidation until 1.28, the immutable gate", () => {
    const row = (v: string) => {
      const r = kubeletRelease(v);
      return [r.registersOnEverySync, r.cacheInvalidatesOnEveryRegistration, r.immutableEphemeralVolumes];
    };
    expect(row("1.18")).toEqual([false, true, false]);
    expect(row("1.19")).toEqual([false, true, true]);
    expect(row("1.21")).toEqual([false, true, true]);
    expect(row("v1.22.13")).toEqual([true, true, true]);
    expect(row("1.28.3")).toEqual([true, true, true]);
    expect(row("1.29")).toEqual([true, false, true]);
    expect(KUBELET_RELEASE_SWITCHES.map((s) => s.minor)).toEqual([18, 19, 21, 22, 29]);
  });

  it("the ImmutableEphemeralVolumes gate turns on early in 1.18 and off in 1.19–1.20, not outside them", () => {
    expect(kubeletRelease("1.18", { immutableEphemeralVolumes: true }).immutableEphemeralVolumes).toBe(true);
    expect(kubeletRelease("1.20", { immutableEphemeralVolumes: false }).immutableEphemeralVolumes).toBe(false);
    expect(() => kubeletRelease("1.21", { immutableEphemeralVolumes: false })).toThrow(/GA in kubelet 1\.21/);
    expect(() => kubeletRelease("1.17", { immutableEphemeralVolumes: true })).toThrow(
      /does not exist in kubelet 1\.17/,
    );
  });

  it("the Cache strategy's read on a sync: etcd when registration invalidated, the cache when the TTL ran out", () => {
    const stale = { trigger: "resync", sinceLastReadMs: 61_000, ttlMs: 60_000 } as const;
    const fresh = { ...stale, sinceLastReadMs: 10_000 };
    expect(cacheStrategyRead(kubeletRelease("1.21"), stale)).toEqual({ resourceVersion: "0" });
    expect(cacheStrategyRead(kubeletRelease("1.21"), fresh)).toBe(undefined);
    expect(cacheStrategyRead(kubeletRelease("1.21"), { ...fresh, trigger: "update" })).toEqual({ resourceVersion: "" });
    expect(cacheStrategyRead(kubeletRelease("1.29"), { ...fresh, trigger: "update" })).toBe(undefined);
    for (const v of ["1.18", "1.28", "1.29"])
      expect(cacheStrategyRead(kubeletRelease(v), { ...fresh, trigger: "add" })).toEqual({ resourceVersion: "" });
    expect(cacheStrategyRead(kubeletRelease("1.28"), fresh)).toEqual({ resourceVersion: "" });
    expect(cacheStrategyRead(kubeletRelease("1.29"), fresh)).toBe(undefined);
    expect(cacheStrategyRead(kubeletRelease("1.29"), stale)).toEqual({ resourceVersion: "0" });
  });

  it("reads versions and kubelet user agents", () => {
    expect(kubeletMinorVersion("1.18.8+k3s1")).toBe(18);
    expect(kubeletVersionOfUserAgent("kubelet/v1.28.3 (linux/amd64) kubernetes/a8a1abc")).toBe("1.28.3");
    expect(kubeletVersionOfUserAgent("kubectl/v1.28.3")).toBe(undefined);
    expect(() => kubeletMinorVersion("x")).toThrow('got "x"');
  });
});
