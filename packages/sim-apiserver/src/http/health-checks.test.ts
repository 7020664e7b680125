import { describe, expect, it } from "vitest";
import { healthResponse, parseHealthPath } from "./health-checks.js";

// upstream: staging/src/k8s.io/apiserver/pkg/server/healthz/healthz_test.go (TestMulitipleChecks, verbose/exclude)
describe("health handlers (healthz.go)", () => {
  it("TestMulitipleChecks: ok without verbose, one line per check and '<name> check passed' with it", () => {
    expect(healthResponse("livez", undefined, new URLSearchParams())).toBe("ok");
    const verbose = healthResponse("livez", undefined, new URLSearchParams("verbose=1"))!.split("\n");
    expect(verbose.slice(0, 3)).toEqual(["[+]ping ok", "[+]log ok", "[+]etcd ok"]);
    expect(verbose.at(-2)).toBe("livez check passed");
    expect(verbose).not.toContain("[+]informer-sync ok");
    const ready = healthResponse("readyz", undefined, new URLSearchParams("verbose"))!.split("\n");
    expect(ready).toContain("[+]informer-sync ok");
    expect(ready.at(-3)).toBe("[+]shutdown ok");
    expect(ready.at(-2)).toBe("readyz check passed");
  });

  it("an excluded check is listed as excluded; a single check answers ok; an unknown one is no answer", () => {
    const text = healthResponse("healthz", undefined, new URLSearchParams("verbose&exclude=etcd"))!;
    expect(text).toContain("[+]etcd excluded: ok\n");
    expect(healthResponse("livez", "etcd", new URLSearchParams())).toBe("ok");
    expect(healthResponse("livez", "poststarthook/rbac/bootstrap-roles", new URLSearchParams())).toBe("ok");
    expect(healthResponse("livez", "nope", new URLSearchParams())).toBeUndefined();
    expect(parseHealthPath("/readyz/poststarthook/bootstrap-controller")).toEqual({
      endpoint: "readyz",
      check: "poststarthook/bootstrap-controller",
    });
    expect(parseHealthPath("/healthzz")).toBeUndefined();
  });
});
