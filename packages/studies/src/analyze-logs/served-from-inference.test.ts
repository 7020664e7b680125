import { KUBE_VERSIONS } from "@informer-ts/sim-apiserver";
import { describe, expect, it } from "vitest";
import { measureRouting, ROUTING_PROBES } from "../studies/apiserver-load/apiserver-load-routing.js";
import { apiserverMinor, inferServedFrom } from "./served-from-inference.js";

describe("inferServedFrom", () => {
  it("a GET without resourceVersion reaches etcd in every release; with one, the cache; watches the cache", () => {
    for (const minor of [18, 21, 22, 28, 29, 31, 34, undefined]) {
      expect(inferServedFrom("get", { resourceVersion: "" }, minor)).toBe("storage");
      expect(inferServedFrom("get", { resourceVersion: "0" }, minor)).toBe("cache");
      expect(inferServedFrom("watch", { resourceVersion: "12" }, minor)).toBe("cache");
      expect(inferServedFrom("list", { resourceVersion: "0", limit: 500 }, minor)).toBe("cache");
      expect(inferServedFrom("create", {}, minor)).toBe(undefined);
    }
  });

  it("an RV-unset list: etcd before ConsistentListFromCache (1.31), the cache after; unknown without a release", () => {
    expect(inferServedFrom("list", { limit: 500 }, 18)).toBe("storage");
    expect(inferServedFrom("list", { limit: 500 }, 30)).toBe("storage");
    expect(inferServedFrom("list", { limit: 500 }, 31)).toBe("cache");
    expect(inferServedFrom("list", { limit: 500 })).toBe(undefined);
    expect(inferServedFrom("list", { continue: "x" }, 33)).toBe("storage");
    expect(inferServedFrom("list", { continue: "x" }, 34)).toBe("cache");
    expect(inferServedFrom("list", { resourceVersion: "7", resourceVersionMatch: "NotOlderThan", limit: 5 }, 30)).toBe(
      "storage",
    );
    expect(inferServedFrom("list", { resourceVersion: "7", resourceVersionMatch: "NotOlderThan", limit: 5 }, 31)).toBe(
      "cache",
    );
  });

  // The simulator reproduces each release's routing from its cacher code (sim-apiserver kube-version.ts): the
  // inference must agree with it on every probe of the apiserver-load routing table.
  for (const version of KUBE_VERSIONS)
    it(`agrees with the simulator's measured routing of ${version} on every probe shape`, async () => {
      const measured = await measureRouting(version);
      const minor = apiserverMinor(version);
      for (const p of ROUTING_PROBES) {
        const outcome = measured[p.shape];
        if (outcome !== "cache" && outcome !== "storage") continue; // rejected (watch-list off)
        const { needsContinue, ...o } = p.options;
        const opts = {
          ...o,
          ...(o.resourceVersion === "current" && { resourceVersion: "5" }),
          ...(needsContinue === true && { continue: "token" }),
        };
        expect([p.shape, inferServedFrom(p.verb, opts, minor)]).toEqual([p.shape, outcome]);
      }
    });

  it("reads releases 1.18 to 1.34 and names anything else", () => {
    expect(apiserverMinor("v1.18.20")).toBe(18);
    expect(apiserverMinor("1.34")).toBe(34);
    expect(() => apiserverMinor("1.17")).toThrow('got "1.17"');
    expect(() => apiserverMinor("2.0")).toThrow(RangeError);
  });
});
