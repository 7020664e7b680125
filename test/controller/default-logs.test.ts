// Logs by default (issue #22): a failing reconcile, a failing leader election (a missing namespace, a 403) and a
// refused Event each write one line through the runtime's default logger — captured here from stderr — with the keys
// controller-runtime and client-go log; `quiet: true` writes nothing. Against the simulated apiserver with a real
// KubeClient under virtual time.
import { builtinResources, listWatchFor } from "@informer-ts/client";
import { Manager, newControllerManagedBy } from "@informer-ts/controller";
import { createSimCluster, type SimCluster } from "@informer-ts/testing";
import { afterEach, describe, expect, it } from "vitest";

const { configmaps } = builtinResources;

/** Every line written to stderr while `fn` runs, parsed when it is JSON (the default format off a terminal). */
async function captureStderr(fn: () => Promise<void>): Promise<Record<string, unknown>[]> {
  const raw: string[] = [];
  const orig = process.stderr.write;
  process.stderr.write = ((chunk: string | Uint8Array) => {
    raw.push(String(chunk));
    return true;
  }) as typeof process.stderr.write;
  try {
    await fn();
  } finally {
    process.stderr.write = orig;
  }
  return raw
    .join("")
    .split("\n")
    .filter((l) => l !== "")
    .map((l) => {
      try {
        return JSON.parse(l) as Record<string, unknown>;
      } catch {
        return { unparsed: l };
      }
    });
}

let cluster: SimCluster | undefined;
afterEach(async () => {
  await cluster?.close();
  cluster = undefined;
});

async function world(extra: Partial<ConstructorParameters<typeof Manager>[0]> = {}) {
  const c = await createSimCluster({ seed: 1 });
  cluster = c;
  const client = c.client;
  const manager = new Manager({
    listerWatcherFor: (r, { namespace }) => listWatchFor(client, r, { namespace }),
    client,
    clock: c.clock,
    metrics: undefined,
    ...extra,
  });
  return { c, manager };
}

async function runFor(c: SimCluster, manager: Manager, until: () => boolean, maxMs = 20_000): Promise<void> {
  const ac = new AbortController();
  const run = manager.run(ac.signal).catch(() => {});
  await c.settle({ until, maxMs });
  ac.abort();
  await c.settle({ until: () => false, maxMs: 1 }).catch(() => {});
  await run;
}

async function failingReconcile(quiet: boolean) {
  const { c, manager } = await world({ quiet });
  let calls = 0;
  newControllerManagedBy(manager)
    .named("failing")
    .for(configmaps)
    .complete(async () => {
      calls++;
      if (calls === 1) throw new Error('configmaps "x" is forbidden: cannot update');
    });
  await c.client.create(configmaps, { metadata: { name: "x", namespace: "default" } }, { namespace: "default" });
  return captureStderr(() => runFor(c, manager, () => calls >= 2));
}

async function failingElection(quiet: boolean, cause: "missing-namespace" | "forbidden") {
  const { c, manager } = await world({
    quiet,
    leaderElection: { namespace: cause === "forbidden" ? "default" : "nope", name: "lock", identity: "me" },
  });
  if (cause === "forbidden") {
    c.faults.request({
      type: "status",
      code: 403,
      resource: "leases",
      message:
        'leases.coordination.k8s.io "lock" is forbidden: User "system:serviceaccount:default:me" cannot get resource "leases"',
    });
  }
  // Several acquire attempts (every 2–4.4 s): the repeated failure is still one error line.
  const t0 = c.clock.now();
  const lines = await captureStderr(() => runFor(c, manager, () => c.clock.now() - t0 > 12_000, 30_000));
  const attempts = c.requests.filter(
    (r) => r.resource === "leases" && r.verb === (cause === "forbidden" ? "get" : "create"),
  );
  return { lines, attempts: attempts.length };
}

async function refusedEvent(quiet: boolean) {
  const { c, manager } = await world({ quiet });
  c.faults.request({
    type: "status",
    code: 403,
    resource: "events",
    verbs: ["create"],
    message: 'events is forbidden: User "me" cannot create resource "events"',
  });
  const recorder = manager.getEventRecorderFor("widget-controller");
  const cm = await c.client.create(
    configmaps,
    { metadata: { name: "x", namespace: "default" } },
    { namespace: "default" },
  );
  let recorded = false;
  return captureStderr(() =>
    runFor(c, manager, () => {
      if (!recorded) {
        recorded = true;
        recorder.event({ ...cm, apiVersion: "v1", kind: "ConfigMap" }, "Warning", "Failed", "could not sync");
      }
      return c.requests.some((r) => r.resource === "events");
    }),
  );
}

const errors = (lines: Record<string, unknown>[]) => lines.filter((l) => l.level === "error");

describe("logs by default", () => {
  it("a failing reconcile: one `Reconciler error` line with controller-runtime's keys", async () => {
    const lines = await failingReconcile(false);
    expect(errors(lines)).toHaveLength(1);
    const [line] = errors(lines);
    expect(line).toMatchObject({
      msg: "Reconciler error",
      controller: "failing",
      controllerGroup: "",
      controllerKind: "ConfigMap",
      namespace: "default",
      name: "x",
      error: 'configmaps "x" is forbidden: cannot update',
    });
    expect(line?.reconcileID).toMatch(/^[0-9a-f-]{36}$/);
  });

  it("a leader election in a missing namespace: one line with the Lease request's cause", async () => {
    const { lines, attempts } = await failingElection(false, "missing-namespace");
    expect(attempts).toBeGreaterThan(2);
    expect(errors(lines)).toHaveLength(1);
    expect(errors(lines)[0]).toMatchObject({
      msg: "error initially creating leader election record",
      logger: "leader-election",
      lease: "nope/lock",
      identity: "me",
      error: 'namespaces "nope" not found',
      code: 404,
    });
  });

  it("a leader election answered 403: one line with the Lease request's cause", async () => {
    const { lines, attempts } = await failingElection(false, "forbidden");
    expect(attempts).toBeGreaterThan(2);
    expect(errors(lines)).toHaveLength(1);
    expect(errors(lines)[0]).toMatchObject({
      msg: "error retrieving resource lock",
      lease: "default/lock",
      code: 403,
      error: expect.stringContaining('cannot get resource "leases"'),
    });
  });

  it("an Event refused with 403: one `Server rejected event (will not retry!)` line", async () => {
    const lines = await refusedEvent(false);
    expect(errors(lines)).toHaveLength(1);
    expect(errors(lines)[0]).toMatchObject({
      msg: "Server rejected event (will not retry!)",
      logger: "events",
      object: "ConfigMap default/x",
      eventReason: "Failed",
      code: 403,
    });
  });

  it("an informer that cannot list (403) is logged as not synced with the reflector's reason", async () => {
    const { c, manager } = await world();
    c.faults.request({
      type: "status",
      code: 403,
      resource: "configmaps",
      verbs: ["list", "watch"],
      message: 'configmaps is forbidden: User "me" cannot list resource "configmaps"',
    });
    newControllerManagedBy(manager)
      .for(configmaps)
      .complete(() => {});
    const t0 = c.clock.now();
    const lines = await captureStderr(() => runFor(c, manager, () => c.clock.now() - t0 > 11_000, 30_000));
    const stalls = lines.filter((l) => l.msg === "Informer has not synced yet");
    expect(stalls.length).toBeGreaterThan(0);
    expect(stalls[0]).toMatchObject({
      level: "warn",
      logger: "manager",
      informer: expect.stringContaining("configmaps"),
      code: 403,
      during: expect.stringMatching(/list|watch/),
      error: expect.stringContaining('cannot list resource "configmaps"'),
    });
  });

  it("quiet: true writes nothing for any of them", async () => {
    expect(await failingReconcile(true)).toEqual([]);
    await cluster?.close();
    expect((await failingElection(true, "missing-namespace")).lines).toEqual([]);
    await cluster?.close();
    expect((await failingElection(true, "forbidden")).lines).toEqual([]);
    await cluster?.close();
    expect(await refusedEvent(true)).toEqual([]);
  });
});
