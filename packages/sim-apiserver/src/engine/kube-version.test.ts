// Read routing per kube-apiserver release (`kubeVersion`): one row per request shape, one expected outcome per
// release — where the request was served from (cache / storage), the status of a failure, how long it waited. The
// rows marked (004) are the routing table of the background write-up 004 for the releases it covers (≤ 1.28),
// reproduced as written; the expectations for 1.31–1.34 follow each release's `shouldDelegateList`/delegator.
import type { KubeList, ListOptions } from "@informer-ts/apimachinery";
import { FakeClock, seededRand, settle } from "@informer-ts/clock";
import { describe, expect, it } from "vitest";
import { KUBE_VERSIONS, type KubeVersion, kubeVersionGates, parseKubeVersion } from "./kube-version.js";
import type { RequestContext } from "./request-context.js";
import { SimApiServer } from "./sim-apiserver.js";

const NS = "ns";

async function setup(kubeVersion: KubeVersion) {
  const clock = new FakeClock();
  const sim = new SimApiServer({
    clock,
    rand: seededRand(1),
    kubeVersion,
    progressNotifyIntervalMs: 0,
    compactionIntervalMs: 0,
    namespaceLifecycle: false,
    controllers: false,
  });
  for (const name of ["a", "b", "c"]) await sim.create("configmaps", NS, { metadata: { name } });
  return { clock, sim, rv: String(sim.currentResourceVersion) };
}

type Setup = Awaited<ReturnType<typeof setup>>;

/**
 * Runs a request to its end, stepping the fake clock by 1 s while it is pending (at most 10 s), and describes the
 * outcome: `cache` / `storage`, then the failure's code, the virtual time it waited, and for lists the item count.
 */
async function outcome(s: Setup, call: (ctx: RequestContext) => Promise<unknown>): Promise<string> {
  const ctx: RequestContext = {};
  let done = false;
  let value: unknown;
  let error: { code?: number } | undefined;
  const p = call(ctx).then(
    (v) => {
      value = v;
      done = true;
    },
    (err: unknown) => {
      error = err as { code?: number };
      done = true;
    },
  );
  let waited = 0;
  await settle();
  while (!done && waited < 10_000) {
    await s.clock.step(1000);
    waited += 1000;
    await settle();
  }
  await p;
  const parts = [ctx.servedFrom ?? "-"];
  if (error !== undefined) parts.push(String(error.code ?? "error"));
  if (waited > 0) parts.push(`after ${waited / 1000}s`);
  const items = (value as KubeList | undefined)?.items;
  if (Array.isArray(items)) parts.push(`${items.length} items`);
  return parts.join(" ");
}

const list = (s: Setup, opts: ListOptions) => outcome(s, (ctx) => s.sim.list("configmaps", NS, opts, ctx));

/** The continue token of a first page of 2 (RV unset), then the continuation. */
async function continuation(s: Setup): Promise<string> {
  const first = await s.sim.list("configmaps", NS, { limit: 2 });
  return list(s, { limit: 2, continue: first.metadata.continue ?? "" });
}

/** The request runs while the watch cache re-initializes (5 s of downtime). */
function whileNotReady(probe: (s: Setup) => Promise<string>) {
  return (s: Setup) => {
    s.sim.faults.reinitializeCache("configmaps", 5000);
    return probe(s);
  };
}

interface Row {
  readonly shape: string;
  readonly probe: (s: Setup) => Promise<string>;
  readonly expected: Readonly<Record<KubeVersion, string>>;
}

const all = (v: string): Record<KubeVersion, string> => ({ "1.22": v, "1.28": v, "1.31": v, "1.33": v, "1.34": v });
const byGate = (before131: string, from131: string): Record<KubeVersion, string> => ({
  "1.22": before131,
  "1.28": before131,
  "1.31": from131,
  "1.33": from131,
  "1.34": from131,
});

const ROWS: readonly Row[] = [
  {
    shape: "(004) list, RV unset",
    probe: (s) => list(s, {}),
    expected: byGate("storage 3 items", "cache 3 items"),
  },
  {
    shape: "(004) list, RV unset, limit 2",
    probe: (s) => list(s, { limit: 2 }),
    expected: byGate("storage 2 items", "cache 2 items"),
  },
  {
    shape: '(004) list, RV "0"',
    probe: (s) => list(s, { resourceVersion: "0" }),
    expected: all("cache 3 items"),
  },
  {
    shape: '(004) list, RV "0", limit 2: limit ignored',
    probe: (s) => list(s, { resourceVersion: "0", limit: 2 }),
    expected: all("cache 3 items"),
  },
  {
    shape: "(004) list, RV=N, no limit",
    probe: (s) => list(s, { resourceVersion: s.rv }),
    expected: all("cache 3 items"),
  },
  {
    shape: "(004) list, RV=N in the future, no limit: 504 after the 3 s wait",
    probe: (s) => list(s, { resourceVersion: String(Number(s.rv) + 5) }),
    expected: all("cache 504 after 3s"),
  },
  {
    shape: "(004) list, RV=N, limit 2 (legacy exact)",
    probe: (s) => list(s, { resourceVersion: s.rv, limit: 2 }),
    expected: { ...all("storage 2 items"), "1.34": "cache 2 items" },
  },
  {
    shape: "(004) list, RV=N, limit 2, NotOlderThan",
    probe: (s) => list(s, { resourceVersion: s.rv, limit: 2, resourceVersionMatch: "NotOlderThan" }),
    expected: byGate("storage 2 items", "cache 2 items"),
  },
  {
    shape: "list, RV=N, Exact",
    probe: (s) => list(s, { resourceVersion: s.rv, resourceVersionMatch: "Exact" }),
    expected: { ...all("storage 3 items"), "1.34": "cache 3 items" },
  },
  {
    shape: "(004) list, continue",
    probe: continuation,
    expected: { ...all("storage 1 items"), "1.34": "cache 1 items" },
  },
  {
    shape: '(004) list, RV "0", cache not ready',
    probe: whileNotReady((s) => list(s, { resourceVersion: "0" })),
    expected: byGate("storage 3 items", "- 429"),
  },
  {
    shape: 'list, RV "0", limit 2, no selector, cache not ready',
    probe: whileNotReady((s) => list(s, { resourceVersion: "0", limit: 2 })),
    expected: all("storage 2 items"),
  },
  {
    shape: "list, RV=N, cache not ready",
    probe: whileNotReady((s) => list(s, { resourceVersion: s.rv })),
    expected: byGate("cache after 5s 3 items", "- 429"),
  },
  {
    shape: "list, RV unset, label selector, cache not ready",
    probe: whileNotReady((s) => list(s, { labelSelector: "x=y" })),
    expected: byGate("storage 0 items", "- 429"),
  },
  {
    shape: "get, RV unset",
    probe: (s) => outcome(s, (ctx) => s.sim.get("configmaps", NS, "a", {}, ctx)),
    expected: all("storage"),
  },
  {
    shape: 'get, RV "0"',
    probe: (s) => outcome(s, (ctx) => s.sim.get("configmaps", NS, "a", { resourceVersion: "0" }, ctx)),
    expected: all("cache"),
  },
  {
    shape: "get, RV=N, cache not ready",
    probe: whileNotReady((s) => outcome(s, (ctx) => s.sim.get("configmaps", NS, "a", { resourceVersion: s.rv }, ctx))),
    expected: byGate("cache after 5s", "storage"),
  },
  {
    shape: "watch, RV=N, cache not ready",
    probe: whileNotReady((s) =>
      outcome(s, (ctx) => s.sim.watch("configmaps", NS, { resourceVersion: s.rv, timeoutSeconds: 60 }, ctx)),
    ),
    // 1.31+: W8's 429 (accounted to the cache, which answered it).
    expected: byGate("cache after 5s", "cache 429"),
  },
  {
    shape: "watch, sendInitialEvents=true",
    probe: (s) =>
      outcome(s, (ctx) =>
        s.sim.watch(
          "configmaps",
          NS,
          {
            sendInitialEvents: true,
            resourceVersionMatch: "NotOlderThan",
            allowWatchBookmarks: true,
            timeoutSeconds: 60,
          },
          ctx,
        ),
      ),
    // The gate is off until 1.34 (1.32's beta is not a listed release). 1.22 does not know the option, and then
    // rejects the resourceVersionMatch (forbidden for a plain watch).
    expected: { "1.22": "- 422", "1.28": "- 422", "1.31": "- 422", "1.33": "- 422", "1.34": "cache" },
  },
  {
    shape: 'watch, RV "0", sendInitialEvents=false',
    probe: (s) =>
      outcome(s, (ctx) =>
        s.sim.watch("configmaps", NS, { resourceVersion: "0", sendInitialEvents: false, timeoutSeconds: 60 }, ctx),
      ),
    // 1.22 ignores the unknown option (a legacy watch); later releases reject it: the gate is off (1.28–1.33), or
    // sendInitialEvents needs resourceVersionMatch=NotOlderThan (1.34).
    expected: { ...all("- 422"), "1.22": "cache" },
  },
];

describe("kubeVersion: served-from per release and request shape", () => {
  for (const row of ROWS) {
    for (const v of KUBE_VERSIONS) {
      it(`${v}: ${row.shape} → ${row.expected[v]}`, async () => {
        const s = await setup(v);
        try {
          expect(await row.probe(s)).toBe(row.expected[v]);
        } finally {
          s.sim.stop();
        }
      });
    }
  }
});

describe("kubeVersion: gates and options", () => {
  it('a legacy RV "0" watch is a watch-list (initial-events-end bookmark) only where WatchList is on', async () => {
    for (const v of KUBE_VERSIONS) {
      const s = await setup(v);
      const w = await s.sim.watch("configmaps", NS, {
        resourceVersion: "0",
        allowWatchBookmarks: true,
        timeoutSeconds: 5,
      });
      const seen: string[] = [];
      const done = (async () => {
        for await (const e of w) seen.push(e.type);
      })();
      await settle();
      await s.clock.step(5000);
      await done;
      const endMarker = seen.includes("BOOKMARK");
      expect([v, seen.slice(0, 3), endMarker]).toEqual([v, ["ADDED", "ADDED", "ADDED"], kubeVersionGates(v).watchList]);
      s.sim.stop();
    }
  });

  it("the watchList and listFromCacheSnapshot options override the release's gates", async () => {
    const clock = new FakeClock();
    const sim = new SimApiServer({ clock, kubeVersion: "1.33", watchList: true, listFromCacheSnapshot: true });
    expect([
      sim.kubeVersion,
      sim.watchListEnabled,
      sim.gates.listFromCacheSnapshot,
      sim.gates.consistentListFromCache,
    ]).toEqual(["1.33", true, true, true]);
    sim.stop();
    const old = new SimApiServer({ clock, kubeVersion: "1.22" });
    expect(old.gates).toMatchObject({
      watchList: false,
      consistentListFromCache: false,
      limitedListsFromStorage: true,
    });
    old.stop();
    expect(new SimApiServer({ clock }).kubeVersion).toBe("1.34");
  });

  it("an unknown release is an error naming it and the known ones; v-prefixed and patch versions are read", () => {
    expect(parseKubeVersion("v1.28.3")).toBe("1.28");
    expect(parseKubeVersion("1.31")).toBe("1.31");
    expect(() => parseKubeVersion("1.29")).toThrow(
      'unknown kube version "1.29": expected one of 1.22, 1.28, 1.31, 1.33, 1.34',
    );
    expect(() => new SimApiServer({ kubeVersion: "2.0" as KubeVersion })).toThrow('unknown kube version "2.0"');
  });
});
