// The `--kube-version` flag of `pnpm apiserver`: parsed into the release whose routing the engine reproduces, with
// that release's WatchList default; a bad value is a usage error naming the flag, the value and the known releases.
// And `--authorization-mode` (AlwaysAllow or RBAC).
import { FakeClock } from "@informer-ts/clock";
import { describe, expect, it } from "vitest";
import { SIM_VERSION_INFO } from "../http/discovery.js";
import { startEngineServer } from "../http/engine-server.test-util.js";
import { fetchRaw } from "../http/http-client.test-util.js";
import { createCliBackend } from "./cli-backend.js";
import { parseApiserverFlags } from "./cli-flags.js";

describe("--kube-version", () => {
  it("absent: today's release (1.34), WatchList on", () => {
    const f = parseApiserverFlags([]);
    expect([f.kubeVersion, f.watchList]).toEqual([undefined, true]);
  });

  it("sets the release and its WatchList default; --no-watch-list still turns WatchList off", () => {
    expect(parseApiserverFlags(["--kube-version", "1.22"])).toMatchObject({ kubeVersion: "1.22", watchList: false });
    expect(parseApiserverFlags(["--kube-version", "v1.34.1"])).toMatchObject({ kubeVersion: "1.34", watchList: true });
    expect(parseApiserverFlags(["--kube-version=1.34", "--no-watch-list"])).toMatchObject({
      kubeVersion: "1.34",
      watchList: false,
    });
  });

  it("a value that is not a known release is an error naming the flag, the value and the releases", () => {
    expect(() => parseApiserverFlags(["--kube-version", "1.29"])).toThrow(
      '--kube-version: unknown kube version "1.29": expected one of 1.22, 1.28, 1.31, 1.33, 1.34',
    );
    expect(() => parseApiserverFlags(["--kube-version", ""])).toThrow('--kube-version: unknown kube version ""');
    expect(() => parseApiserverFlags(["--kube-version"])).toThrow("--kube-version");
  });

  it("the command's engine routes reads as the release does", async () => {
    const cli = await createCliBackend(parseApiserverFlags(["--kube-version", "1.22"]), { clock: new FakeClock() });
    try {
      expect(cli.engine.kubeVersion).toBe("1.22");
      const ctx: { servedFrom?: "cache" | "storage" } = {};
      await cli.engine.list("configmaps", "default", {}, ctx);
      expect(ctx.servedFrom).toBe("storage"); // 1.22: an RV-unset list is a quorum read from etcd
    } finally {
      await cli.stop();
    }
  });
});

describe("--kube-version over HTTP", () => {
  it("/version answers the release and RV-unset lists are accounted to etcd on 1.22, to the cache on 1.34", async () => {
    for (const [v, from] of [
      ["1.22", "storage"],
      ["1.34", "cache"],
    ] as const) {
      const s = await startEngineServer(new FakeClock(), parseApiserverFlags(["--kube-version", v]));
      try {
        const version = (await fetchRaw(`${s.url}/version`)).json as Record<string, string>;
        if (v === "1.34") expect(version).toEqual(SIM_VERSION_INFO);
        else {
          expect(version).toMatchObject({ major: "1", minor: "22", gitVersion: "v1.22.0-informer-ts-sim" });
          expect(version).not.toHaveProperty("emulationMajor");
        }
        expect((await fetchRaw(`${s.url}/api/v1/namespaces/default/configmaps?limit=500`)).status).toBe(200);
        expect(s.engine.accounting.count({ verb: "list", servedFrom: from })).toBe(1);
      } finally {
        await s.close();
      }
    }
  });
});

describe("--authorization-mode", () => {
  it("defaults to AlwaysAllow, takes RBAC, and names the flag for anything else", () => {
    expect(parseApiserverFlags([]).authorizationMode).toBe("AlwaysAllow");
    expect(parseApiserverFlags(["--authorization-mode=RBAC"]).authorizationMode).toBe("RBAC");
    expect(() => parseApiserverFlags(["--authorization-mode", "Node,RBAC"])).toThrow(
      '--authorization-mode: unknown mode "Node,RBAC" (AlwaysAllow or RBAC)',
    );
  });

  it("the command's engine enforces RBAC with it", async () => {
    const cli = await createCliBackend(parseApiserverFlags(["--authorization-mode=RBAC"]), { clock: new FakeClock() });
    try {
      expect(cli.backend.authorizer?.().mode).toBe("RBAC");
    } finally {
      await cli.stop();
    }
  });
});

describe("--service-account-signing-key-file", () => {
  it("names the key file (read and checked when the backend starts)", () => {
    expect(parseApiserverFlags([]).serviceAccountSigningKeyFile).toBeUndefined();
    expect(
      parseApiserverFlags(["--service-account-signing-key-file", "/tmp/sa.key"]).serviceAccountSigningKeyFile,
    ).toBe("/tmp/sa.key");
  });
});
