// The kubelet-configmap study's report charts.
import type { ReportChart } from "../../report/report-chart.js";
import { CPU_KIND_LABELS, CPU_KINDS, type CpuKind } from "./kubelet-configmap-cpu.js";
import { INTERVAL_BUCKETS_SECONDS } from "./kubelet-configmap-options.js";
import type { VariantRun } from "./kubelet-configmap-variant.js";

/** The report's charts: GET and WATCH rates, open watches and their memory over time, GET intervals, CPU by request. */
export function charts(runs: readonly VariantRun[]): ReportChart[] {
  const rate = (key: string) =>
    runs.map((r) => ({
      name: r.result.name,
      points: r.result.samples.slice(1).map((s) => [s.t / 1000, s.requestsPerSecond[key] ?? 0] as const),
    }));
  const out: ReportChart[] = [
    {
      kind: "line",
      frame: {
        id: "storage-gets",
        title: "GET/s served from storage (etcd)",
        xLabel: "virtual time (s)",
        yLabel: "requests/s",
      },
      series: rate("get/storage"),
    },
    {
      kind: "line",
      frame: {
        id: "cache-gets",
        title: "GET/s served from the watch cache (RV=0)",
        xLabel: "virtual time (s)",
        yLabel: "requests/s",
      },
      series: rate("get/cache"),
    },
    {
      kind: "line",
      frame: {
        id: "open-watches",
        title: "Open ConfigMap watches at the apiserver",
        xLabel: "virtual time (s)",
        yLabel: "watches",
      },
      series: runs.map((r) => ({
        name: r.result.name,
        points: r.series.map((p) => [p.t / 1000, p.openWatches] as const),
      })),
    },
    {
      kind: "line",
      frame: {
        id: "watch-opens",
        title: "WATCH requests/s (opens and re-opens)",
        xLabel: "virtual time (s)",
        yLabel: "requests/s",
      },
      series: rate("watch/cache"),
    },
  ];
  const labels = INTERVAL_BUCKETS_SECONDS.map((le, i) =>
    i === 0 ? `≤${le}` : `${INTERVAL_BUCKETS_SECONDS[i - 1]}–${le}`,
  );
  labels.push(`>${INTERVAL_BUCKETS_SECONDS.at(-1)}`);
  const withGets = runs.filter((r) => (r.result.figures.intervals ?? 0) > 0);
  out.push({
    kind: "bar",
    frame: {
      id: "get-intervals",
      title: "Seconds between two GETs of one ConfigMap by one kubelet",
      xLabel: "interval (s)",
      yLabel: "intervals",
    },
    categories: labels,
    series: withGets.map((r) => ({ name: r.result.name, values: r.intervalBuckets })),
  });
  const cpuSeconds = (r: VariantRun, k: CpuKind) =>
    ((r.result.figures[`cpuMs.warmup.${k}`] ?? 0) + (r.result.figures[`cpuMs.steady.${k}`] ?? 0)) / 1000;
  // "other" (no request of this study falls there) only when something did
  const cpuKinds = CPU_KINDS.filter((k) => k !== "other" || runs.some((r) => cpuSeconds(r, k) > 0));
  out.push({
    kind: "bar",
    frame: {
      id: "cpu",
      title: "apiserver CPU by request (cost model), whole run",
      xLabel: "request",
      yLabel: "virtual CPU seconds",
    },
    categories: cpuKinds.map((k) => CPU_KIND_LABELS[k]),
    series: runs.map((r) => ({ name: r.result.name, values: cpuKinds.map((k) => cpuSeconds(r, k)) })),
  });
  out.push({
    kind: "line",
    frame: {
      id: "watch-memory",
      title: "kube-apiserver memory held by ConfigMap watches (model)",
      xLabel: "virtual time (s)",
      yLabel: "bytes",
    },
    series: runs.map((r) => ({
      name: r.result.name,
      points: r.series.map((p) => [p.t / 1000, p.memoryBytes] as const),
    })),
  });
  return out;
}
