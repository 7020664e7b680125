import { describe, expect, it } from "vitest";
import { bindAddress, FlagError, parseManagerFlags } from "./manager-flags.js";

describe("parseManagerFlags (kubebuilder's main.go flags)", () => {
  it("defaults: probes (and /metrics) on :8081, no separate metrics server, no election, production logs", () => {
    expect(parseManagerFlags([])).toEqual({
      metricsBindAddress: undefined,
      healthProbeBindAddress: { host: "0.0.0.0", port: 8081 },
      leaderElect: false,
      zapDevel: false,
      extra: {},
    });
  });

  it("reads every standard flag, as --flag value and --flag=value", () => {
    const f = parseManagerFlags([
      "--kubeconfig",
      "/tmp/kc",
      "--metrics-bind-address=127.0.0.1:9090",
      "--health-probe-bind-address",
      "0",
      "--leader-elect",
      "--leader-election-id=mirror.example.com",
      "--leader-election-namespace",
      "ops",
      "--zap-devel",
      "--zap-log-level=warning",
      "--zap-encoder",
      "console",
      "--kube-api-qps=-1",
      "--kube-api-burst",
      "200",
    ]);
    expect(f).toMatchObject({
      kubeconfig: "/tmp/kc",
      metricsBindAddress: { host: "127.0.0.1", port: 9090 },
      healthProbeBindAddress: undefined,
      leaderElect: true,
      leaderElectionID: "mirror.example.com",
      leaderElectionNamespace: "ops",
      zapDevel: true,
      zapLogLevel: "warn",
      zapEncoder: "console",
      kubeApiQps: -1,
      kubeApiBurst: 200,
    });
  });

  it.each([
    [["--leader-elec"], /Unknown option '--leader-elec'/],
    [["stray"], /positional argument/],
    [["--metrics-bind-address", "8080"], /--metrics-bind-address: not a \[host\]:port address or 0, got "8080"/],
    [["--health-probe-bind-address=:99999"], /--health-probe-bind-address: not a \[host\]:port/],
    [["--zap-log-level=loud"], /--zap-log-level: must be debug, info, warn or error, got "loud"/],
    [["--zap-encoder=xml"], /--zap-encoder: must be json or console/],
    [["--kube-api-qps=fast"], /--kube-api-qps: must be a number other than 0 \(negative: no limit\), got "fast"/],
    [["--kube-api-qps=0"], /--kube-api-qps: must be a number other than 0/],
    [["--kube-api-burst=1.5"], /--kube-api-burst: must be a positive integer, got "1.5"/],
  ])("%j is a FlagError naming the flag", (argv, message) => {
    expect(() => parseManagerFlags(argv)).toThrow(FlagError);
    expect(() => parseManagerFlags(argv)).toThrow(message);
  });

  it("a program's own flags, declared in extraFlags, come back in extra", () => {
    const f = parseManagerFlags(["--namespace", "prod", "--dry-run"], {
      namespace: { type: "string" },
      "dry-run": { type: "boolean" },
    });
    expect(f.extra).toEqual({ namespace: "prod", "dry-run": true });
  });

  it("bindAddress: IPv6 in brackets, 0 disables", () => {
    expect(bindAddress("x", "[::1]:80")).toEqual({ host: "::1", port: 80 });
    expect(bindAddress("x", "0")).toBeUndefined();
  });
});
