// `pnpm bench apiserver`, admission part: validated writes beside the same writes with the admission chain off
// (`admission: false`), in-process, for a Pod, a Deployment and a custom resource with 20 schema fields and 3 CEL
// rules.
import type { KubeObject } from "@informer-ts/apimachinery";
import { FakeClock, seededRand } from "@informer-ts/clock";
import { SimApiServer } from "@informer-ts/sim-apiserver";
import { Admission } from "@informer-ts/sim-apiserver/engine";
import { elapsedMs, fmtInt } from "./apiserver-harness.js";
import type { ApiserverSizes } from "./apiserver-sizes.js";
import type { BenchRow } from "./report.js";

const podSpec = (image: string) => ({
  containers: [
    { name: "app", image, ports: [{ containerPort: 8080 }], env: [{ name: "MODE", value: "prod" }] },
    { name: "sidecar", image: "envoy:1.30" },
  ],
});

function pod(name: string, image: string): KubeObject {
  return { metadata: { name, labels: { app: "web" } }, spec: podSpec(image) };
}

function deployment(name: string, image: string): KubeObject {
  return {
    metadata: { name, labels: { app: name } },
    spec: {
      replicas: 3,
      selector: { matchLabels: { app: name } },
      template: { metadata: { labels: { app: name } }, spec: podSpec(image) },
    },
  };
}

/** 20 spec fields of every structural kind the schema validator walks. */
const WIDGET_FIELDS: Record<string, Record<string, unknown>> = {};
for (let i = 0; i < 20; i++) {
  const kind = i % 4;
  WIDGET_FIELDS[`f${i}`] =
    kind === 0
      ? { type: "integer", minimum: 0, maximum: 1000 }
      : kind === 1
        ? { type: "string", maxLength: 64, pattern: "^[a-z0-9-]+$" }
        : kind === 2
          ? { type: "string", enum: ["a", "b", "c"] }
          : { type: "array", maxItems: 8, items: { type: "string" } };
}

/** The custom resource's CRD (group `bench.example.com`, kind `Widget`). */
export const WIDGET_CRD: KubeObject = {
  metadata: { name: "widgets.bench.example.com" },
  spec: {
    group: "bench.example.com",
    scope: "Namespaced",
    names: { plural: "widgets", kind: "Widget" },
    versions: [
      {
        name: "v1",
        served: true,
        storage: true,
        schema: {
          openAPIV3Schema: {
            type: "object",
            properties: {
              spec: {
                type: "object",
                properties: WIDGET_FIELDS,
                required: ["f0", "f1"],
                "x-kubernetes-validations": [
                  { rule: "self.f0 <= 1000", message: "f0 too large" },
                  { rule: "self.f1.startsWith('v-')" },
                  { rule: "size(self.f3) <= 8", messageExpression: "'too many items: ' + string(size(self.f3))" },
                ],
              },
            },
          },
        },
      },
    ],
  },
};

function widget(name: string, n: number): KubeObject {
  const spec: Record<string, unknown> = {};
  for (let i = 0; i < 20; i++) {
    const kind = i % 4;
    spec[`f${i}`] = kind === 0 ? n % 1000 : kind === 1 ? `v-${n}` : kind === 2 ? "b" : ["x", "y"];
  }
  return { apiVersion: "bench.example.com/v1", kind: "Widget", metadata: { name }, spec };
}

/** One kind of the admission rows: its resource and how to make its `n`th object. */
export interface AdmissionCase {
  /** Short name (the instruction-count harness's `kind`). */
  readonly id: "pod" | "deployment" | "widget";
  readonly label: string;
  readonly resource: string;
  readonly make: (name: string, n: number) => KubeObject;
}

/** The admission rows' kinds: a Pod, a Deployment, a custom resource with 20 schema fields and 3 CEL rules. */
export const ADMISSION_CASES: readonly AdmissionCase[] = [
  { id: "pod", label: "Pod", resource: "pods", make: (name, n) => pod(name, `web:${n}`) },
  {
    id: "deployment",
    label: "Deployment",
    resource: "deployments.apps",
    make: (name, n) => deployment(name, `web:${n}`),
  },
  {
    id: "widget",
    label: "custom resource (20 schema fields, 3 CEL rules)",
    resource: "widgets.bench.example.com",
    make: widget,
  },
];

/** Creates then updates `writes` objects of a case; returns [creates/s, updates/s]. */
async function run(c: AdmissionCase, writes: number, admission: boolean): Promise<[number, number]> {
  const engine = new SimApiServer({
    clock: new FakeClock(),
    rand: seededRand(1),
    admission,
    controllers: false,
    compactionIntervalMs: 0,
    progressNotifyIntervalMs: 0,
  });
  await engine.create("customresourcedefinitions.apiextensions.k8s.io", "", WIDGET_CRD);
  const names = Array.from({ length: writes }, (_, i) => `o-${i}`);
  let t = process.hrtime.bigint();
  for (let i = 0; i < writes; i++) await engine.create(c.resource, "default", c.make(names[i]!, i));
  const createMs = elapsedMs(t);
  t = process.hrtime.bigint();
  for (let i = 0; i < writes; i++) await engine.update(c.resource, "default", names[i]!, c.make(names[i]!, i + 1));
  const updateMs = elapsedMs(t);
  return [(writes / createMs) * 1000, (writes / updateMs) * 1000];
}

/**
 * The admission chain alone on `writes` objects of a case (decode, defaults and validation of a create), as the
 * registry runs it: objects/s. Shows what admission costs beside the rest of the write path.
 */
async function chainOnly(c: AdmissionCase, writes: number): Promise<number> {
  const engine = new SimApiServer({ clock: new FakeClock(), controllers: false, compactionIntervalMs: 0 });
  await engine.create("customresourcedefinitions.apiextensions.k8s.io", "", WIDGET_CRD);
  const r = engine.resource(c.resource);
  const adm = new Admission();
  const objects = Array.from({ length: writes }, (_, i) => c.make(`o-${i}`, i));
  const t = process.hrtime.bigint();
  for (const o of objects) {
    adm.decode(r, o, {}, true);
    adm.default(r, o, undefined, {});
    if (adm.validate(r, o, undefined, {}).length > 0) throw new Error(`bench object of ${c.label} is invalid`);
  }
  return (writes / elapsedMs(t)) * 1000;
}

/**
 * Validated create and update throughput of each case beside the same with admission off (best of `reps` after a
 * warm-up). The ratio is the time of a validated write over an unvalidated one.
 */
export async function admissionBench(sizes: ApiserverSizes): Promise<BenchRow[]> {
  const writes = sizes.admissionWrites;
  const rows: BenchRow[] = [];
  for (const c of ADMISSION_CASES) {
    await run(c, Math.min(500, writes), true);
    await run(c, Math.min(500, writes), false);
    let on: [number, number] = [0, 0];
    let off: [number, number] = [0, 0];
    for (let r = 0; r < sizes.reps; r++) {
      const a = await run(c, writes, true);
      const b = await run(c, writes, false);
      on = [Math.max(on[0], a[0]), Math.max(on[1], a[1])];
      off = [Math.max(off[0], b[0]), Math.max(off[1], b[1])];
    }
    let chain = 0;
    for (let r = 0; r < sizes.reps + 1; r++) chain = Math.max(chain, await chainOnly(c, writes));
    rows.push({
      case: `admission chain alone (decode, defaults, validation) of a ${c.label} (${fmtInt(writes)} objects)`,
      value: chain,
      unit: "objects/s",
      goal: "≥ 20k/s",
      met: chain >= 20_000,
    });
    for (const [i, verb] of [
      [0, "create"],
      [1, "update"],
    ] as const) {
      const ratio = off[i] / on[i];
      rows.push({
        case: `validated ${verb} of a ${c.label}, in-process (${fmtInt(writes)} writes)`,
        value: on[i],
        unit: "writes/s",
        baseline: off[i],
        ratioLabel: "time validated / time with admission off",
        ratio,
        goal: "≤ 1.5× and ≥ 20k writes/s",
        met: ratio <= 1.5 && on[i] >= 20_000,
      });
    }
  }
  return rows;
}
