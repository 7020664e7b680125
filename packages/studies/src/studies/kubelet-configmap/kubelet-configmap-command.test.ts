import { UsageError } from "@informer-ts/apimachinery";
import { describe, expect, it } from "vitest";
import { scenarioCommand } from "../../study-command.js";

async function run(args: string[]) {
  let out = "";
  let err = "";
  const code = await scenarioCommand(["kubelet-configmap", ...args], {
    out: (t) => {
      out += t;
    },
    err: (t) => {
      err += t;
    },
  });
  return { code, out, err };
}

describe("informer scenario kubelet-configmap", () => {
  it("runs small from flags: progress lines, the summary beside the write-up's figures", async () => {
    const r = await run(["--nodes", "1", "--pods-per-node", "4", "--duration", "180", "--variants", "cache,watch"]);
    expect(r.code).toBe(0);
    expect(r.err).toContain("[cache] t=60s pod syncs=");
    expect(r.out).toMatch(/write-up\s+measured/);
    expect(r.out).toContain("Cache (kubelet 1.28, TTL 60s)");
    expect(r.out).toContain("200k");
  });

  it("names bad flags in usage errors", async () => {
    const cases: [string[], string][] = [
      [["--nodes", "0"], '--nodes must be an integer ≥ 1, got "0"'],
      [["--pods-per-node", "2.5"], '--pods-per-node must be an integer ≥ 1, got "2.5"'],
      [["--immutable-fraction", "1.5"], '--immutable-fraction must be within [0, 1], got "1.5"'],
      [["--kubelet-version", "latest"], '--kubelet-version must look like 1.28 or v1.28.0, got "latest"'],
      [["--variants", "cache,wtach"], '--variants: unknown value "wtach"'],
      [["--duration", "60"], "--duration 60 must outlast the warm-up (1.5 × --sync-frequency = 90 s)"],
      [["--cluster-size=-3"], '--cluster-size must be an integer ≥ 0, got "-3"'],
    ];
    for (const [args, message] of cases) {
      const failure = run(args);
      await expect(failure, args.join(" ")).rejects.toBeInstanceOf(UsageError);
      await expect(failure, args.join(" ")).rejects.toThrow(message);
    }
  });
});
