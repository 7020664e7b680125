// Study 004's routing table: which request shapes kube-apiserver answers from the watch cache and which from etcd,
// measured on the simulator per Kubernetes version, beside what write-up 004 says.

import type { KubeObject, ListOptions } from "@informer-ts/apimachinery";
import { StatusError } from "@informer-ts/apimachinery";
import { FakeClock, seededRand, settle } from "@informer-ts/clock";
import { type KubeVersion, type RequestContext, SimApiServer } from "@informer-ts/sim-apiserver";
import { requestShape } from "../../analyze-logs/request-shape.js";

/** One request shape of the routing table: how the study issues it, who issues it so, what the write-up says. */
export interface RoutingProbe {
  /** The shape label (`requestShape`), as `informer analyze-logs` prints it. */
  readonly shape: string;
  /** Who sends such requests. */
  readonly example: string;
  /** Write-up 004's statement for this shape ("—" when it says nothing). */
  readonly writeUp: string;
  readonly verb: "list" | "get" | "watch";
  /** The list options; `rv: "current"` is replaced by the store's current resourceVersion, `continue` by a token. */
  readonly options: ListOptions & { readonly needsContinue?: boolean };
}

/**
 * The shapes of write-up 004's routing rules (its §3 "关于 list 请求" list, from the v1.2x cacher it quotes, and its
 * §4 note that consistent reads are served from the cache), in the order the write-up gives them.
 */
export const ROUTING_PROBES: readonly RoutingProbe[] = [
  {
    shape: requestShape("list", {}),
    example: "client-go List(ListOptions{})",
    writeUp: "etcd (RV unset is passed through); cache once consistent reads come from the cache (§4)",
    verb: "list",
    options: {},
  },
  {
    shape: requestShape("list", { limit: 500 }),
    example: "a paginated list, first page",
    writeUp: "etcd (RV unset with limit)",
    verb: "list",
    options: { limit: 500 },
  },
  {
    shape: requestShape("list", { limit: 500, labelSelector: "app=web" }),
    example: "kubectl get pods -l app=web",
    writeUp: "etcd (limit 500 pages, label filter in the apiserver)",
    verb: "list",
    options: { limit: 500, labelSelector: "app=web" },
  },
  {
    shape: requestShape("list", { continue: "x" }),
    example: "the next page of a paginated list",
    writeUp: "etcd (a continue token is passed through)",
    verb: "list",
    options: { limit: 2, needsContinue: true },
  },
  {
    shape: requestShape("list", { resourceVersion: "0", limit: 500 }),
    example: "reflector's initial list (RV 0, pager limit 500)",
    writeUp: "cache, limit ignored (§3 rule; its reflector section says such a list hits etcd)",
    verb: "list",
    options: { resourceVersion: "0", limit: 500 },
  },
  {
    shape: requestShape("list", { resourceVersion: "0" }),
    example: 'List(ListOptions{ResourceVersion: "0"})',
    writeUp: "cache",
    verb: "list",
    options: { resourceVersion: "0" },
  },
  {
    shape: requestShape("list", { resourceVersion: "5" }),
    example: "a list not older than a known RV",
    writeUp: "cache (waits until fresh, 3 s)",
    verb: "list",
    options: { resourceVersion: "current" },
  },
  {
    shape: requestShape("list", { resourceVersion: "5", limit: 500 }),
    example: "a paginated list at a known RV",
    writeUp: "etcd (RV ≠ 0 with limit)",
    verb: "list",
    options: { resourceVersion: "current", limit: 500 },
  },
  {
    shape: requestShape("get", {}),
    example: "kubelet's first GET of a ConfigMap",
    writeUp: "—",
    verb: "get",
    options: {},
  },
  {
    shape: requestShape("get", { resourceVersion: "0" }),
    example: 'kubelet node status, refresh after the TTL (GET RV "0")',
    writeUp: "—",
    verb: "get",
    options: { resourceVersion: "0" },
  },
  {
    shape: requestShape("watch", { resourceVersion: "5" }),
    example: "reflector's watch after its list",
    writeUp: "cache (the cacher's watchers)",
    verb: "watch",
    options: { resourceVersion: "current" },
  },
  {
    shape: requestShape("watch", { sendInitialEvents: true }),
    example: "client-go ≥ 1.35 informer start (streaming watch-list)",
    writeUp: "— (not in the write-up)",
    verb: "watch",
    options: { sendInitialEvents: true, resourceVersionMatch: "NotOlderThan", allowWatchBookmarks: true },
  },
];

/** Where one probe was answered: `cache`, `storage`, or why it was refused (`rejected 422`). */
export type RoutingOutcome = string;

const POD = (name: string, ns: string, app: string): KubeObject => ({
  apiVersion: "v1",
  kind: "Pod",
  metadata: { name, namespace: ns, labels: { app } },
  spec: { containers: [{ name: "c", image: "busybox" }] },
});

/**
 * Sends every {@link ROUTING_PROBES} request once to a fresh simulated apiserver of `version` (a few pods, the cache
 * ready) and returns where each was served from, by shape. Deterministic: virtual time, seeded.
 */
export async function measureRouting(version: KubeVersion, seed = 1): Promise<Record<string, RoutingOutcome>> {
  const clock = new FakeClock(Date.UTC(2026, 0, 1));
  const sim = new SimApiServer({ clock, rand: seededRand(seed), kubeVersion: version });
  try {
    for (let i = 0; i < 6; i++)
      await sim.create("pods", "default", POD(`p-${i}`, "default", i % 2 === 0 ? "web" : "db"));
    await clock.step(1000);
    await settle();
    const current = String(sim.state().resourceVersion);
    const out: Record<string, RoutingOutcome> = {};
    for (const p of ROUTING_PROBES) {
      const ac = new AbortController();
      const ctx: RequestContext = { userAgent: "routing-probe", signal: ac.signal };
      try {
        const { needsContinue, ...opts } = p.options;
        const options: ListOptions = {
          ...opts,
          ...(opts.resourceVersion === "current" && { resourceVersion: current }),
        };
        if (p.verb === "list" && needsContinue === true) {
          const first = await sim.list("pods", "", options, { userAgent: "routing-probe" });
          const token = first.metadata?.continue ?? "";
          if (token === "") throw new Error("the first page has no continue token");
          await sim.list("pods", "", { limit: options.limit ?? 2, continue: token }, ctx);
        } else if (p.verb === "list") await sim.list("pods", "", options, ctx);
        else if (p.verb === "get")
          await sim.get("pods", "default", "p-0", { resourceVersion: options.resourceVersion ?? "" }, ctx);
        else {
          const w = await sim.watch("pods", "", { ...options, timeoutSeconds: 5 }, ctx);
          w.stop();
        }
        ac.abort();
        out[p.shape] = ctx.servedFrom ?? "?";
      } catch (err) {
        ac.abort();
        out[p.shape] = err instanceof StatusError ? `rejected ${err.code}` : `error: ${String(err)}`;
      }
    }
    return out;
  } finally {
    sim.stop();
  }
}
