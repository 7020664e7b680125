import type { KubeObject } from "@informer-ts/apimachinery";
import { FakeClock } from "@informer-ts/clock";
import { describe, expect, it } from "vitest";
import type { KubeletPod } from "./manager.js";
import { VolumeManager } from "./volume-manager.js";

const pod: KubeletPod = { namespace: "ns", name: "p", uid: "u", configMaps: ["a", "b", "a"] };

describe("VolumeManager", () => {
  it("mounts a pod's ConfigMap volumes at the reconciler tick after the populator's, and remounts on every reprocess", async () => {
    const clock = new FakeClock(0);
    const reads: [string, number][] = [];
    const vm = new VolumeManager({
      clock,
      phaseMs: 30,
      getConfigMap: async (_ns, name) => {
        reads.push([name, clock.now()]);
        return { metadata: { name } };
      },
    });
    await clock.step(50);
    vm.reprocessPod(pod);
    await clock.step(1000);
    // populator at 130 ms, reconciler at 230 ms; "a" is mounted once although listed twice
    expect(reads).toEqual([
      ["a", 230],
      ["b", 230],
    ]);
    expect(vm.stats()).toMatchObject({ mounts: 2, remounts: 0, inFlight: 0 });
    vm.reprocessPod(pod);
    vm.reprocessPod(pod);
    await clock.step(1000);
    expect(reads.slice(2)).toEqual([
      ["a", 1230],
      ["b", 1230],
    ]);
    expect(vm.stats()).toMatchObject({ mounts: 2, remounts: 2 });
    vm.stop();
    vm.reprocessPod(pod);
    await clock.step(1000);
    expect(reads).toHaveLength(4);
  });

  it("retries a failed mount with exponential backoff from 500 ms", async () => {
    const clock = new FakeClock(0);
    const reads: number[] = [];
    let failures = 3;
    const vm = new VolumeManager({
      clock,
      getConfigMap: async (): Promise<KubeObject> => {
        reads.push(clock.now());
        if (failures-- > 0) throw new Error("apiserver unavailable");
        return {};
      },
    });
    vm.reprocessPod({ namespace: "ns", name: "p", uid: "u", configMaps: ["a"] });
    await clock.step(10_000);
    // 200 (first try), +500 → 700, +1000 → 1700, +2000 → 3700 (each on the 100 ms grid)
    expect(reads).toEqual([200, 700, 1700, 3700]);
    expect(vm.stats()).toMatchObject({ mounts: 1, mountFailures: 3 });
    vm.stop();
  });

  it("adopts mounted volumes: the first reprocess is a remount", async () => {
    const clock = new FakeClock(0);
    let reads = 0;
    const vm = new VolumeManager({
      clock,
      getConfigMap: async () => {
        reads++;
        return {};
      },
    });
    vm.adoptMounted(pod);
    await clock.step(1000);
    expect(reads).toBe(0);
    vm.reprocessPod(pod);
    await clock.step(1000);
    expect(vm.stats()).toMatchObject({ mounts: 0, remounts: 2 });
    vm.removePod("u");
    vm.reprocessPod({ ...pod, uid: "v" });
    await clock.step(1000);
    expect(vm.stats().mounts).toBe(2);
    vm.stop();
  });
});
