// The one-line main over HTTP: newManager from a kubeconfig file and kubebuilder's flags, against the simulated
// apiserver listening on loopback (virtual time, real sockets). /metrics of that manager lists the client's, the work
// queue's, the controller's, the informers', the election's, the event recorder's and the process's metrics.
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { builtinResources } from "@informer-ts/client";
import { FlagError, newControllerManagedBy, newManager } from "@informer-ts/controller";
import { silentLogger } from "@informer-ts/instrumentation";
import { createSimCluster } from "@informer-ts/testing";
import { describe, expect, it } from "vitest";

const { configmaps } = builtinResources;

describe("newManager (the one-line main)", () => {
  it("serves every runtime metric family on --metrics-bind-address and probes on --health-probe-bind-address", async () => {
    const c = await createSimCluster({ seed: 1, transport: "http" });
    const dir = mkdtempSync(join(tmpdir(), "new-manager-"));
    const kubeconfig = join(dir, "kubeconfig");
    writeFileSync(kubeconfig, c.kubeconfig ?? "");
    try {
      const { manager, flags } = await newManager({
        flags: [
          "--kubeconfig",
          kubeconfig,
          "--metrics-bind-address=127.0.0.1:0",
          "--health-probe-bind-address=127.0.0.1:0",
          "--leader-elect",
          "--leader-election-id=one-line",
          "--leader-election-namespace=default",
        ],
        clock: c.clock,
        handleSignals: false,
        logger: silentLogger,
      });
      expect(flags.leaderElect).toBe(true);
      const recorder = manager.getEventRecorderFor("one-line");
      let reconciled = 0;
      newControllerManagedBy(manager)
        .for(configmaps)
        .complete(async (req) => {
          reconciled++;
          recorder.event({ kind: "ConfigMap", namespace: req.namespace, name: req.name }, "Normal", "Seen", "seen");
        });
      await c.client.create(configmaps, { metadata: { name: "a", namespace: "default" } }, { namespace: "default" });
      const ac = new AbortController();
      const run = manager.run(ac.signal);
      await c.settle({ until: () => reconciled > 0 && manager.elector?.isLeader() === true, maxMs: 60_000 });
      const m = manager.metricsAddress();
      const p = manager.probeAddress();
      expect(m).toBeDefined();
      expect(p).toBeDefined();
      expect(m?.port).not.toBe(p?.port);
      const body = await (await fetch(`http://127.0.0.1:${m?.port}/metrics`)).text();
      const families = new Set([...body.matchAll(/^# TYPE (\S+)/gm)].map((x) => x[1]));
      for (const name of [
        "rest_client_requests_total",
        "rest_client_request_duration_seconds",
        "workqueue_adds_total",
        "workqueue_depth",
        "controller_runtime_reconcile_total",
        "controller_runtime_reconcile_time_seconds",
        "informer_store_resource_version",
        "leader_election_master_status",
        "event_recorder_dropped_total",
        "process_cpu_seconds_total",
        "nodejs_eventloop_lag_seconds",
      ]) {
        expect(families, name).toContain(name);
      }
      expect(body).toMatch(/leader_election_master_status\{name="one-line"\} 1/);
      expect(body).toMatch(/informer_store_resource_version\{[^}]*resource="configmaps"/);
      const ready = await fetch(`http://127.0.0.1:${p?.port}/readyz`);
      expect(ready.status).toBe(200);
      ac.abort();
      await c.settle({ until: () => false, maxMs: 1 }).catch(() => {});
      await run;
    } finally {
      await c.close();
    }
  });

  it("keeps client-go's 5 qps unless --kube-api-qps/--kube-api-burst say otherwise", async () => {
    const base = { clientConfig: { server: "http://127.0.0.1:1" }, quiet: true, handleSignals: false } as const;
    const plain = await newManager({ ...base, flags: ["--health-probe-bind-address=0"] });
    expect([plain.client.config.qps, plain.client.config.burst]).toEqual([undefined, undefined]);
    const fast = await newManager({
      ...base,
      flags: ["--health-probe-bind-address=0", "--kube-api-qps=-1", "--kube-api-burst=50"],
    });
    expect([fast.client.config.qps, fast.client.config.burst]).toEqual([-1, 50]);
    await plain.client.close();
    await fast.client.close();
  });

  it("a bad flag rejects with a FlagError naming it, before anything is opened", async () => {
    await expect(newManager({ flags: ["--metrics-bind-address", "nope"] })).rejects.toThrow(FlagError);
    await expect(
      newManager({ flags: ["--leader-elect"], clientConfig: { server: "http://127.0.0.1:1" } }),
    ).rejects.toThrow(/--leader-elect: the Lease needs a name/);
  });
});
