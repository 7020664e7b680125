// `pnpm bench testing`: how fast @informer-ts/testing runs generated cases of a realistic size — a 2k-object cluster,
// an hour of virtual time with churn and faults, the library's informer checked against every invariant — in-process
// and over a loopback HTTP listener.

import { availableParallelism, loadavg } from "node:os";
import {
  type FaultStep,
  faultStepArb,
  type ObjectStep,
  objectStepArb,
  runInformerCase,
  type SimCluster,
  type SimStep,
} from "@informer-ts/testing";
import fc from "fast-check";
import type { BenchResult, BenchRow } from "./report.js";
import { envInt } from "./util.js";

const NAMESPACES = ["default", "team-a"] as const;

/** One generated history: `minutes` minutes, each `perMinute` writes and faults (4:1) followed by a minute of waiting. */
function history(objects: number, minutes: number, perMinute: number, seed: number): SimStep[] {
  const names = Array.from({ length: Math.ceil(objects / NAMESPACES.length) }, (_, i) => `cm-${i}`);
  const options = { namespaces: NAMESPACES, names };
  const step = fc.oneof(
    { weight: 4, arbitrary: objectStepArb(options) as fc.Arbitrary<ObjectStep | FaultStep> },
    { weight: 1, arbitrary: faultStepArb(options) as fc.Arbitrary<ObjectStep | FaultStep> },
  );
  const sampled = fc.sample(step, { numRuns: minutes * perMinute, seed });
  const steps: SimStep[] = [];
  for (let m = 0; m < minutes; m++) {
    steps.push(...sampled.slice(m * perMinute, (m + 1) * perMinute), { kind: "wait", ms: 60_000 });
  }
  return steps;
}

/** Creates `objects` ConfigMaps through the engine (not through the request log). */
function populate(objects: number) {
  return async (cluster: SimCluster) => {
    for (let i = 0; i < objects; i++) {
      const namespace = NAMESPACES[i % NAMESPACES.length]!;
      await cluster.engine.create("configmaps", namespace, {
        apiVersion: "v1",
        kind: "ConfigMap",
        metadata: { name: `cm-${Math.floor(i / NAMESPACES.length)}`, namespace },
        data: { v: String(i).padEnd(256, "x") },
      });
    }
  };
}

interface Variant {
  readonly seconds: number[];
  /** CPU seconds (user + system) of this process per case: less sensitive than wall time to other load. */
  readonly cpuSeconds: number[];
  readonly failures: string[];
  readonly faults: number;
}

async function measure(
  transport: "in-process" | "http",
  cases: number,
  objects: number,
  minutes: number,
  perMinute: number,
): Promise<Variant> {
  const seconds: number[] = [];
  const cpuSeconds: number[] = [];
  const failures: string[] = [];
  let faults = 0;
  for (let c = 0; c < cases; c++) {
    const steps = history(objects, minutes, perMinute, 1000 + c);
    faults += steps.filter((s) => !["put", "label", "large", "delete", "recreate", "wait"].includes(s.kind)).length;
    const start = process.hrtime.bigint();
    const cpu = process.cpuUsage();
    const outcome = await runInformerCase(
      { transport, prepare: populate(objects), history: { namespaces: NAMESPACES } },
      { useWatchList: c % 2 === 1, steps, seed: 1000 + c },
    );
    seconds.push(Number(process.hrtime.bigint() - start) / 1e9);
    const used = process.cpuUsage(cpu);
    cpuSeconds.push((used.user + used.system) / 1e6);
    for (const r of outcome.reports) if (!r.ok) failures.push(`${transport} case ${c}: ${r.name}: ${r.violations[0]}`);
  }
  return { seconds, cpuSeconds, failures, faults };
}

/** The suite: cases/s and wall seconds per simulated hour, in-process vs over HTTP. */
export async function runTesting(): Promise<BenchResult> {
  const objects = envInt("BENCH_TESTING_OBJECTS", 2000, 1);
  const minutes = envInt("BENCH_TESTING_MINUTES", 60, 1);
  const perMinute = envInt("BENCH_TESTING_STEPS_PER_MINUTE", 10, 0);
  const cases = envInt("BENCH_TESTING_CASES", 4, 1);
  const httpCases = envInt("BENCH_TESTING_HTTP_CASES", 2, 0);
  // One warm-up case (JIT, module loading) that is not counted.
  await measure("in-process", 1, Math.min(objects, 200), Math.min(minutes, 5), perMinute);
  const inProcess = await measure("in-process", cases, objects, minutes, perMinute);
  const http = httpCases > 0 ? await measure("http", httpCases, objects, minutes, perMinute) : undefined;
  const mean = (xs: readonly number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
  const size = `${objects} objects, ${minutes} virtual min, ${minutes * perMinute} writes/faults`;
  const rows: BenchRow[] = [];
  const ip = mean(inProcess.seconds);
  rows.push({
    case: `wall time of one generated case (${size}), in-process`,
    value: ip,
    unit: "s",
    goal: minutes === 60 && objects >= 2000 ? "< 1 s per simulated hour" : undefined,
    ...(minutes === 60 && objects >= 2000 && { met: ip < 1 }),
    note: `${inProcess.faults} faults over ${cases} cases; slowest ${Math.max(...inProcess.seconds).toFixed(2)} s; virtual/wall ${((minutes * 60) / ip).toFixed(0)}×`,
  });
  rows.push({
    case: `CPU time of one generated case (${size}), in-process`,
    value: mean(inProcess.cpuSeconds),
    unit: "s",
    note: `user + system of this process; load average ${loadavg()[0]!.toFixed(1)} on ${availableParallelism()} cores`,
  });
  rows.push({ case: `generated cases per second (${size}), in-process`, value: 1 / ip, unit: "cases/s" });
  if (http !== undefined) {
    const h = mean(http.seconds);
    rows.push({
      case: `wall time of one generated case (${size}), over HTTP`,
      value: h,
      unit: "s",
      baseline: ip,
      ratioLabel: "HTTP/in-process",
      ratio: h / ip,
      note: `${http.faults} faults over ${httpCases} cases; virtual/wall ${((minutes * 60) / h).toFixed(0)}×`,
    });
    rows.push({
      case: `CPU time of one generated case (${size}), over HTTP`,
      value: mean(http.cpuSeconds),
      unit: "s",
      baseline: mean(inProcess.cpuSeconds),
      ratioLabel: "HTTP/in-process",
      ratio: mean(http.cpuSeconds) / mean(inProcess.cpuSeconds),
    });
    rows.push({
      case: `generated cases per second (${size}), over HTTP`,
      value: 1 / h,
      unit: "cases/s",
      baseline: 1 / ip,
      ratioLabel: "HTTP/in-process",
      ratio: ip / h,
    });
  }
  const failures = [...inProcess.failures, ...(http?.failures ?? [])];
  for (const f of failures.slice(0, 5)) rows.push({ case: `invariant broken: ${f}`, value: Number.NaN, unit: "" });
  return {
    name: "testing",
    rows,
    meta: {
      objects,
      minutes,
      stepsPerMinute: perMinute,
      cases,
      httpCases,
      node: process.version,
      failures: failures.length,
    },
  };
}
