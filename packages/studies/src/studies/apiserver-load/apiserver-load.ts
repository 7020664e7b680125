// Study 004: where a mixed client workload's reads are served (watch cache or etcd) per Kubernetes version, who
// sends them, and the write-up's routing table measured per version.
import { FakeClock, seededRand } from "@informer-ts/clock";
import { KUBE_VERSIONS, type KubeVersion, SimApiServer } from "@informer-ts/sim-apiserver";
import type { ReportChart } from "../../report/report-chart.js";
import type { ScenarioReport, SummaryRow, VariantResult } from "../../report/study-report.js";
import { requestsByServedFrom, ScenarioRuntime } from "../../runtime/study-runtime.js";
import { measureRouting, ROUTING_PROBES, type RoutingOutcome } from "./apiserver-load-routing.js";
import {
  LOAD_USER_AGENTS,
  type LoadWorkloadOptions,
  RunningWorkload,
  seedLoadCluster,
} from "./apiserver-load-workload.js";
import { klogTextLogger } from "./klog-writer.js";

/** Options of {@link runApiserverLoad}; see {@link LoadWorkloadOptions} for the workload's. */
export interface ApiserverLoadOptions extends Partial<LoadWorkloadOptions> {
  /** The versions to run the workload on, one variant each. Default 1.22 and 1.34. */
  readonly versions?: readonly KubeVersion[];
  /** The versions of the routing table. Default all of {@link KUBE_VERSIONS}. */
  readonly routingVersions?: readonly KubeVersion[];
  /** Virtual length of each variant in s. Default 300. */
  readonly durationSeconds?: number;
  /** Sampling period in virtual s. Default 5. */
  readonly sampleSeconds?: number;
  readonly seed?: number;
  readonly sampleHeap?: boolean;
  readonly progress?: (line: string) => void;
  /**
   * Receives the simulator's log of the variant of `version`, for `--log`: one audit line per request (the
   * accounting's audit sink) and its own log (trace blocks, cache events) in klog's text format, in the order written;
   * a trace block is one multi-line text.
   */
  readonly log?: (version: KubeVersion, text: string) => void;
}

/** The workload's clients, as the study reports them (by user agent). */
export const LOAD_CLIENTS = ["informers", "kubectl", "rv-less lists", "kubelets", "writes"] as const;
type LoadClient = (typeof LOAD_CLIENTS)[number];

function clientOf(userAgent: string): LoadClient | undefined {
  if (userAgent.startsWith("controller-")) return "informers";
  if (userAgent === LOAD_USER_AGENTS.kubectl) return "kubectl";
  if (userAgent === LOAD_USER_AGENTS.lister) return "rv-less lists";
  if (userAgent === LOAD_USER_AGENTS.kubelet) return "kubelets";
  if (userAgent === LOAD_USER_AGENTS.writer) return "writes";
  return undefined;
}

const DEFAULTS: LoadWorkloadOptions = {
  pods: 5000,
  namespaces: 50,
  apps: 10,
  informers: 4,
  restartSeconds: 60,
  watchList: false,
  kubectlSeconds: 10,
  plainListSeconds: 30,
  nodes: 100,
  kubeletSeconds: 10,
  configMapsPerNode: 2,
  writesPerSecond: 20,
};

/**
 * Runs study 004 in virtual time: for each version a fresh simulated apiserver routing reads as that release did,
 * `pods` pods, and the mixed workload of {@link RunningWorkload} for `durationSeconds`; requests are attributed by
 * client and served-from from the simulator's accounting. Then every {@link ROUTING_PROBES} shape is sent once to
 * each of `routingVersions`, giving the routing table beside the write-up's rules.
 */
export async function runApiserverLoad(options: ApiserverLoadOptions = {}): Promise<ScenarioReport> {
  const w: LoadWorkloadOptions = {
    pods: options.pods ?? DEFAULTS.pods,
    namespaces: options.namespaces ?? DEFAULTS.namespaces,
    apps: options.apps ?? DEFAULTS.apps,
    informers: options.informers ?? DEFAULTS.informers,
    restartSeconds: options.restartSeconds ?? DEFAULTS.restartSeconds,
    watchList: options.watchList ?? DEFAULTS.watchList,
    kubectlSeconds: options.kubectlSeconds ?? DEFAULTS.kubectlSeconds,
    plainListSeconds: options.plainListSeconds ?? DEFAULTS.plainListSeconds,
    nodes: options.nodes ?? DEFAULTS.nodes,
    kubeletSeconds: options.kubeletSeconds ?? DEFAULTS.kubeletSeconds,
    configMapsPerNode: options.configMapsPerNode ?? DEFAULTS.configMapsPerNode,
    writesPerSecond: options.writesPerSecond ?? DEFAULTS.writesPerSecond,
  };
  if (w.namespaces < 1) throw new RangeError(`namespaces must be ≥ 1, got ${w.namespaces}`);
  if (w.apps < 1) throw new RangeError(`apps must be ≥ 1, got ${w.apps}`);
  const durationSeconds = options.durationSeconds ?? 300;
  const sampleSeconds = options.sampleSeconds ?? 5;
  const seed = options.seed ?? 1;
  const versions = options.versions ?? (["1.22", "1.34"] as const);
  const variants: VariantResult[] = [];
  for (const v of versions) variants.push(await runVersion(v, w, { ...options, durationSeconds, sampleSeconds, seed }));
  const routingVersions = options.routingVersions ?? KUBE_VERSIONS;
  const routing: Record<string, Record<string, RoutingOutcome>> = {};
  for (const v of routingVersions) routing[v] = await measureRouting(v, seed);
  return {
    scenario: "apiserver-load",
    title: "Who loads the apiserver, and which reads reach etcd, per Kubernetes version",
    source:
      "shared/background/004: RV-less, paginated and labelled lists and continue pages go to etcd; RV 0 is served " +
      "from the watch cache; consistent reads from the cache change that",
    params: {
      ...w,
      versions: versions.join(","),
      routingVersions: routingVersions.join(","),
      durationSeconds,
      sampleSeconds,
      seed,
    },
    description:
      `${w.pods} pods, ${w.informers} restarting informers, kubectl -l every ${w.kubectlSeconds} s, ` +
      `${w.nodes} kubelets every ${w.kubeletSeconds} s, ${w.writesPerSecond} writes/s; ${durationSeconds} virtual s ` +
      `per version (${versions.join(", ")}); routing table of ${routingVersions.join(", ")}`,
    variants,
    summary: [...summarize(variants, versions), ...routingRows(routing, routingVersions)],
    charts: charts(variants, routing, routingVersions),
    standardCharts: ["requests", "memory"],
    extra: { routing },
  };
}

function charts(
  variants: readonly VariantResult[],
  routing: Readonly<Record<string, Readonly<Record<string, RoutingOutcome>>>>,
  routingVersions: readonly KubeVersion[],
): ReportChart[] {
  const readers = LOAD_CLIENTS.filter((c) => c !== "writes");
  return [
    {
      kind: "bar",
      frame: {
        id: "storage-reads",
        title: "Reads that reached etcd, by client",
        xLabel: "client",
        yLabel: "requests served from storage",
      },
      categories: readers,
      series: variants.map((v) => ({ name: v.name, values: readers.map((c) => v.figures[`${c}.storage`] ?? 0) })),
    },
    {
      kind: "bar",
      frame: {
        id: "cpu",
        title: "apiserver CPU by client (cost model)",
        xLabel: "client",
        yLabel: "virtual CPU seconds",
      },
      categories: [...LOAD_CLIENTS],
      series: variants.map((v) => ({
        name: v.name,
        values: LOAD_CLIENTS.map((c) => (v.figures[`${c}.cpuMs`] ?? 0) / 1000),
      })),
    },
    {
      kind: "bar",
      frame: {
        id: "routing",
        title: `The write-up's ${ROUTING_PROBES.length} request shapes: where each version serves them`,
        xLabel: "Kubernetes version",
        yLabel: "request shapes",
      },
      categories: routingVersions.map((v) => `v${v}`),
      series: ["storage", "cache"].map((from) => ({
        name: from === "storage" ? "served from etcd" : "served from the watch cache",
        values: routingVersions.map((v) => Object.values(routing[v] ?? {}).filter((o) => o === from).length),
      })),
    },
  ];
}

async function runVersion(
  version: KubeVersion,
  w: LoadWorkloadOptions,
  o: ApiserverLoadOptions & { durationSeconds: number; sampleSeconds: number; seed: number },
): Promise<VariantResult> {
  const clock = new FakeClock(Date.UTC(2026, 0, 1));
  const log = o.log;
  let logging = false;
  const sim = new SimApiServer({
    clock,
    rand: seededRand(o.seed),
    kubeVersion: version,
    // The cost model: virtual latency, apiserver CPU and APF seats per request (docs/sim-apiserver.md, Models).
    costModel: true,
    ...(log !== undefined && { traceLog: true }),
    ...(log !== undefined && {
      logger: klogTextLogger(
        () => clock.now(),
        (text) => {
          if (logging) log(version, text);
        },
      ),
    }),
  });
  const rand = seededRand(o.seed + 1);
  await seedLoadCluster(sim, clock, w);
  sim.accounting.reset();
  if (log !== undefined) {
    logging = true;
    sim.accounting.auditLog = (line) => log(version, line);
  }
  const rt = new ScenarioRuntime({
    clock,
    rand,
    workers: 1,
    cost: 0,
    sampleIntervalMs: o.sampleSeconds * 1000,
    sampleHeap: o.sampleHeap ?? false,
    requests: requestsByServedFrom(sim.accounting),
  });
  const workload = new RunningWorkload(sim, clock, rand, w, () => rt.countEvent());
  try {
    await rt.run({
      forMs: o.durationSeconds * 1000,
      stepMs: o.sampleSeconds * 1000,
      onProgress: (ms) => {
        if (ms % 30_000 === 0) {
          const c = workload.counts;
          o.progress?.(
            `[${version}] t=${ms / 1000}s requests=${sim.accounting.count()} informer starts=${c.informerStarts} kubectl pages=${c.kubectlPages}`,
          );
        }
      },
    });
  } finally {
    await workload.stop();
    await rt.stop();
    sim.accounting.auditLog = undefined;
    logging = false;
    sim.stop();
  }
  const figures: Record<string, number | null> = {};
  const add = (k: string, n: number) => {
    figures[k] = (figures[k] ?? 0) + n;
  };
  for (const r of sim.accounting.rows()) {
    add("requests", r.count);
    add("cpuMs", r.cpuMsSum);
    add("seatSeconds", r.seatSeconds);
    add(`cpuMs.${r.servedFrom === "" ? "writes" : r.servedFrom}`, r.cpuMsSum);
    const client = clientOf(r.userAgent);
    if (client !== undefined) {
      add(`${client}.requests`, r.count);
      add(`${client}.cpuMs`, r.cpuMsSum);
      add(`${client}.seatSeconds`, r.seatSeconds);
    }
    if (r.servedFrom === "storage" || r.servedFrom === "cache") {
      add(`reads.${r.servedFrom}`, r.count);
      if (client !== undefined) add(`${client}.${r.servedFrom}`, r.count);
    }
    // Code 0: a request cancelled when the run ended (its client stopped); ≥ 400: refused.
    if (r.code >= 400) {
      add("errors", r.count);
      if (client !== undefined) add(`${client}.errors`, r.count);
    }
  }
  const c = workload.counts;
  Object.assign(figures, {
    informerStarts: c.informerStarts,
    kubectlRuns: c.kubectlRuns,
    kubectlPages: c.kubectlPages,
    plainLists: c.plainLists,
    kubeletGets: c.kubeletGets,
    writes: c.writes,
    failedRequests: [...c.errors.values()].reduce((s, n) => s + n, 0),
    version: KUBE_VERSIONS.indexOf(version),
  });
  return { name: `v${version}`, samples: rt.samples(), waitBuckets: rt.waitHistogram.buckets(), figures };
}

const WRITE_UP_BY_CLIENT: Readonly<Record<LoadClient, string>> = {
  informers: "relist with RV 0 + limit 500: cache (§3 rule; its reflector note says etcd)",
  kubectl: "etcd (kubectl get -l: limit 500 pages, RV unset)",
  "rv-less lists": "etcd (RV unset); cache with consistent reads (§4)",
  kubelets: "—",
  writes: "— (writes always go to etcd)",
};

function summarize(variants: readonly VariantResult[], versions: readonly KubeVersion[]): SummaryRow[] {
  const rows: SummaryRow[] = [];
  variants.forEach((v, i) => {
    const f = v.figures;
    const n = (k: string) => f[k] ?? 0;
    for (const client of LOAD_CLIENTS) {
      const total = n(`${client}.requests`);
      if (total === 0) continue;
      const storage = n(`${client}.storage`);
      const cache = n(`${client}.cache`);
      rows.push({
        variant: v.name,
        metric: `${client}: requests, served from`,
        writeUp: WRITE_UP_BY_CLIENT[client],
        measured:
          (client === "writes" ? `${total} writes` : `${total}: storage ${storage}, cache ${cache}`) +
          (n(`${client}.errors`) > 0 ? `, refused ${n(`${client}.errors`)}` : ""),
      });
    }
    const cpu = n("cpuMs");
    rows.push({
      variant: v.name,
      metric: "apiserver CPU (cost model), by client",
      writeUp: "—",
      measured:
        `${(cpu / 1000).toFixed(1)} s: ` +
        LOAD_CLIENTS.filter((c) => n(`${c}.requests`) > 0)
          .map((c) => `${c} ${cpu === 0 ? 0 : ((100 * n(`${c}.cpuMs`)) / cpu).toFixed(0)}%`)
          .join(", "),
    });
    rows.push({
      variant: v.name,
      metric: "apiserver CPU (cost model), by where served",
      writeUp: "—",
      measured: `etcd reads ${(n("cpuMs.storage") / 1000).toFixed(1)} s, cache reads ${(n("cpuMs.cache") / 1000).toFixed(1)} s, writes ${(n("cpuMs.writes") / 1000).toFixed(1)} s; APF ${n("seatSeconds").toFixed(1)} seat-s`,
    });
    const reads = n("reads.storage") + n("reads.cache");
    rows.push({
      variant: v.name,
      metric: "reads served from etcd (storage)",
      writeUp: versions[i] === "1.22" ? "every RV-less, limited or continued list" : "—",
      measured: `${n("reads.storage")} of ${reads} (${reads === 0 ? 0 : ((100 * n("reads.storage")) / reads).toFixed(1)}%)`,
    });
  });
  return rows;
}

function routingRows(
  routing: Readonly<Record<string, Readonly<Record<string, RoutingOutcome>>>>,
  versions: readonly KubeVersion[],
): SummaryRow[] {
  return ROUTING_PROBES.map((p) => ({
    variant: `routing ${versions.join("/")}`,
    metric: `${p.shape} (${p.example})`,
    writeUp: p.writeUp,
    measured: versions.map((v) => shortOutcome(routing[v]?.[p.shape] ?? "?")).join(" / "),
  }));
}

function shortOutcome(o: RoutingOutcome): string {
  return o === "storage" ? "etcd" : o;
}
