import {
  type KubeList,
  type KubeObject,
  type ListOptions,
  newForbidden,
  newNotFound,
  newResourceExpired,
  newTooManyRequests,
  newUnauthorized,
} from "@informer-ts/apimachinery";
import { FakeClock, seededRand, settle } from "@informer-ts/clock";
import { describe, expect, it } from "vitest";
import { metaNamespaceKeyFunc } from "../keys.js";
import type { ListerWatcher, ListerWatcherTarget, Watch } from "../listwatch.js";
import { newStore } from "../store-impl.js";
import { FakeWatch } from "../testing/fake-controller-source.js";
import { startRun } from "../testing/start-run.js";
import type { LogLevel, ReflectorLogger } from "./logger.js";
import { Reflector } from "./reflector.js";
import { failureHint, failureKindOf } from "./status.js";

type Obj = KubeObject;
const refused = () => Object.assign(new Error("connect ECONNREFUSED 127.0.0.1:6443"), { code: "ECONNREFUSED" });

interface Line {
  level: LogLevel;
  message: string;
  fields: Record<string, unknown>;
  at: number;
}

function capture(clock?: FakeClock): ReflectorLogger & { lines: Line[]; warnings: () => Line[] } {
  const lines: Line[] = [];
  return {
    lines,
    warnings: () => lines.filter((l) => l.level === "warn"),
    log(level, message, fields) {
      lines.push({ level, message, fields: { ...fields }, at: clock?.now() ?? 0 });
    },
  };
}

/** A ListerWatcher whose list/watch answers come from functions of the attempt number. */
function lwOf(
  list: (n: number) => KubeList<Obj> | Error,
  watch: (n: number) => Watch<Obj> | Error = () => new FakeWatch<Obj>(),
  target?: ListerWatcherTarget,
): ListerWatcher<Obj> & { lists: number; watches: number } {
  const lw = {
    lists: 0,
    watches: 0,
    ...(target === undefined ? {} : { target }),
    async list(_o: ListOptions) {
      const a = list(++lw.lists);
      if (a instanceof Error) throw a;
      return a;
    },
    async watch(_o: ListOptions) {
      const a = watch(++lw.watches);
      if (a instanceof Error) throw a;
      return a;
    },
  };
  return lw;
}

function reflector(lw: ListerWatcher<Obj>, clock: FakeClock, logger: ReflectorLogger) {
  return new Reflector(lw, { apiVersion: "v1", kind: "ConfigMap" }, newStore<Obj>(metaNamespaceKeyFunc), {
    clock,
    rand: seededRand(9),
    logger,
    name: "cm-reflector",
    useWatchList: false,
    // The default handler logs every listAndWatch error (client-go's klog line); keep only the failure reporter.
    watchErrorHandler: () => {},
  });
}

describe("reflector failure reporting (say what is wrong, once and then periodically)", () => {
  it("server down: the first failure is a warning naming the URL, then a summary after 5 and 10 tries", async () => {
    const clock = new FakeClock();
    const log = capture(clock);
    const lw = lwOf(() => refused(), undefined, {
      url: "https://127.0.0.1:6443",
      resource: "configmaps",
      version: "v1",
    });
    const r = reflector(lw, clock, log);
    const sub = startRun(r);
    await settle();
    expect(log.warnings()).toHaveLength(1);
    const first = log.warnings()[0]!;
    expect(first.message).toBe("list of /v1, Kind=ConfigMap failed (unreachable)");
    expect(first.fields.hint).toBe(
      "the server at https://127.0.0.1:6443 does not answer: is it running, and is that the right address?",
    );
    expect(first.fields).toMatchObject({ reflector: "cm-reflector", during: "list", errno: "ECONNREFUSED", tries: 1 });
    while (lw.lists < 4) await clock.step(1000);
    expect(log.warnings()).toHaveLength(1); // tries 2–4 are silent
    while (lw.lists < 5) await clock.step(1000);
    const summary = log.warnings()[1]!;
    expect(summary.message).toMatch(
      /^list of \/v1, Kind=ConfigMap still failing after 5 tries over \d+ s \(unreachable\)$/,
    );
    const seconds = Number(/over (\d+) s/.exec(summary.message)![1]);
    expect(seconds).toBe(Math.round((summary.at - first.at) / 1000));
    expect(seconds).toBeGreaterThan(5);
    while (lw.lists < 9) await clock.step(1000);
    expect(log.warnings()).toHaveLength(2);
    while (lw.lists < 10) await clock.step(1000);
    expect(log.warnings()[2]?.message).toMatch(/still failing after 10 tries/);
    expect(r.status().failure).toMatchObject({ kind: "unreachable", tries: 10, during: "list" });
    await sub.stop();
  });

  it("a change of error kind is logged at once, with the new hint; recovery is logged at info level", async () => {
    const clock = new FakeClock();
    const log = capture();
    const lw = lwOf(
      (n) =>
        n <= 2
          ? refused()
          : n <= 4
            ? newForbidden({ group: "", resource: "configmaps" }, "", "RBAC")
            : { metadata: { resourceVersion: "5" }, items: [] },
      undefined,
      { user: "alice", resource: "configmaps", version: "v1", namespace: "team-a" },
    );
    const r = reflector(lw, clock, log);
    const sub = startRun(r);
    while (lw.lists < 5) await clock.step(1000);
    await settle();
    const warnings = log.warnings();
    expect(warnings.map((w) => w.message)).toEqual([
      "list of /v1, Kind=ConfigMap failed (unreachable)",
      "list of /v1, Kind=ConfigMap now fails differently (forbidden, was unreachable during list)",
    ]);
    expect(warnings[1]?.fields.hint).toBe(
      'user "alice" may not list v1/configmaps in namespace team-a: check its RBAC (kubectl auth can-i list configmaps)',
    );
    expect(warnings[1]?.fields.code).toBe(403);
    const recovered = log.lines.find((l) => l.message.includes("recovered"));
    expect(recovered?.level).toBe("info");
    expect(recovered?.message).toMatch(/^list of \/v1, Kind=ConfigMap recovered after 4 failed tries over \d+ s$/);
    expect(r.status().failure).toBeUndefined();
    expect(r.status().hasSynced).toBe(true);
    await sub.stop();
  });

  it("404 names the group/version/resource and asks whether the CRD is installed; 401 names the user", () => {
    const target = { group: "example.com", version: "v1", resource: "widgets", user: "bob" };
    const nf = newNotFound({ group: "example.com", resource: "widgets" }, "");
    expect(failureKindOf(nf)).toBe("not-found");
    expect(failureHint("not-found", "list", target, "example.com/v1, Kind=Widget")).toBe(
      "the server does not serve example.com/v1/widgets: check the group/version/resource; for a custom resource, is the CRD installed?",
    );
    expect(failureHint("not-found", "list", undefined, "example.com/v1, Kind=Widget")).toMatch(
      /does not serve example.com\/v1, Kind=Widget.*is the CRD installed\?/,
    );
    expect(failureKindOf(newUnauthorized())).toBe("unauthorized");
    expect(failureHint("unauthorized", "watch", target, "x")).toMatch(/credentials of user "bob"/);
    expect(failureHint("unreachable", "list", undefined, "x")).toMatch(/server address in the kubeconfig/);
    expect(failureKindOf(new Error("weird"))).toBe("other");
  });

  it("watch failures (retried in place) are reported too, and end when the watch delivers an event", async () => {
    const clock = new FakeClock();
    const log = capture();
    const good = new FakeWatch<Obj>();
    const lw = lwOf(
      () => ({ metadata: { resourceVersion: "1" }, items: [] }),
      (n) => (n <= 6 ? refused() : good),
    );
    const r = reflector(lw, clock, log);
    const sub = startRun(r);
    while (lw.watches < 7) await clock.step(1000);
    expect(log.warnings().map((w) => w.message)).toEqual([
      "watch of /v1, Kind=ConfigMap failed (unreachable)",
      expect.stringMatching(/^watch of \/v1, Kind=ConfigMap still failing after 5 tries over \d+ s \(unreachable\)$/),
    ]);
    expect(r.status().failure?.tries).toBe(6);
    good.push({
      type: "ADDED",
      object: { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "a", resourceVersion: "2" } },
    });
    await settle();
    expect(r.status().failure).toBeUndefined();
    expect(log.lines.at(-1)?.message).toMatch(/^watch of .* recovered after 6 failed tries/);
    await sub.stop();
  });

  it("a 429 is said at info level first (shedding load is routine); a lasting one is summarised at warning level", async () => {
    const clock = new FakeClock();
    const log = capture(clock);
    const lw = lwOf(() => newTooManyRequests("slow down", 1));
    const r = reflector(lw, clock, log);
    const sub = startRun(r);
    await settle();
    expect(log.warnings()).toEqual([]);
    expect(log.lines.find((l) => l.message.includes("failed (too-many-requests)"))?.level).toBe("info");
    while (lw.lists < 5) await clock.step(1000);
    expect(log.warnings().map((w) => w.message)).toEqual([
      expect.stringMatching(/still failing after 5 tries over \d+ s \(too-many-requests\)$/),
    ]);
    await sub.stop();
  });

  it("routine relists (410 Expired) are not failures", async () => {
    const clock = new FakeClock();
    const log = capture();
    const lw = lwOf(
      () => ({ metadata: { resourceVersion: "1" }, items: [] }),
      (n) => (n === 1 ? newResourceExpired("too old") : new FakeWatch<Obj>()),
    );
    const r = reflector(lw, clock, log);
    const sub = startRun(r);
    await clock.step(5000);
    expect(lw.lists).toBeGreaterThanOrEqual(2);
    expect(log.warnings()).toEqual([]);
    expect(r.status().failure).toBeUndefined();
    await sub.stop();
  });
});
