// examples/widget-controller under its own property: generated histories of Widget writes through `history.resources`
// (create, spec changes that bump the generation, deletes held by the finalizer) mixed with the kit's ConfigMap
// writes and every server fault.
import { builtinResources } from "@informer-ts/client";
import { DEFAULT_VERBS } from "@informer-ts/sim-apiserver";
import { checkController, type ServerState } from "@informer-ts/testing";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  REGISTRY_NAMESPACE,
  registryName,
  setupWidgetController,
  type WidgetStatus,
  widgets,
} from "../../examples/widget-controller/src/widget-controller.js";

const { configmaps, namespaces } = builtinResources;
const RUNS = 40;
const NAMES = ["a", "b"];

const widgetResource = {
  group: widgets.group,
  version: widgets.version,
  resource: widgets.resource,
  kind: widgets.kind,
  namespaced: true,
  singularName: "widget",
  verbs: DEFAULT_VERBS,
  custom: true,
  subresources: ["status"],
};

/**
 * The Widget writes, from `history.resources`: create a Widget or change its size (a spec change: a new generation),
 * or delete it (the controller's finalizer holds it). No status writes by another controller: this controller owns
 * the status.
 */
const widgetHistory = {
  resource: widgets,
  names: NAMES,
  spec: fc.record({ size: fc.integer({ min: 1, max: 3 }) }),
  status: false as const,
};

/** Every live Widget has its child of its size, its registry entry and its status; nothing outlives its Widget. */
function widgetsConverged(state: ServerState): string[] {
  const out: string[] = [];
  const live = state.list(widgets).filter((w) => w.metadata?.deletionTimestamp === undefined);
  for (const w of live) {
    const ns = w.metadata!.namespace!;
    const name = w.metadata!.name!;
    const size = String((w.spec as { size?: number } | undefined)?.size ?? 1);
    const child = state.get(configmaps, ns, `${name}-widget`);
    if ((child?.data as Record<string, string> | undefined)?.size !== size)
      out.push(`${ns}/${name}-widget lacks size ${size}`);
    if (state.get(configmaps, REGISTRY_NAMESPACE, registryName(ns, name)) === undefined)
      out.push(`${ns}/${name} is not registered`);
    const status = w.status as WidgetStatus | undefined;
    if (status?.observedGeneration !== w.metadata?.generation)
      out.push(`${ns}/${name} status is behind its generation`);
  }
  const deleting = state.list(widgets).filter((w) => w.metadata?.deletionTimestamp !== undefined);
  for (const w of deleting) out.push(`${w.metadata!.namespace}/${w.metadata!.name} is still held by its finalizer`);
  for (const cm of state.list(configmaps, REGISTRY_NAMESPACE)) {
    const [ns, name] = (cm.metadata!.name ?? "").split(".");
    if (state.get(widgets, ns!, name!) === undefined)
      out.push(`registry entry ${cm.metadata!.name} outlived its Widget`);
  }
  for (const cm of state.list(configmaps, "default")) {
    const n = cm.metadata!.name!;
    if (n.endsWith("-widget") && state.get(widgets, "default", n.slice(0, -"-widget".length)) === undefined) {
      out.push(`default/${n} outlived its Widget`);
    }
  }
  return out;
}

describe("examples/widget-controller under checkController", () => {
  it(`keeps children, registry, status and finalizer right over ${RUNS} generated histories with faults`, async () => {
    const started = process.cpuUsage();
    const r = await checkController({
      property: "widget-controller",
      numRuns: RUNS,
      seed: 1,
      resources: [widgetResource],
      history: { namespaces: ["default"], maxSteps: 15, resources: [widgetHistory] },
      prepare: async (c) => {
        await c.client.create(namespaces, { metadata: { name: REGISTRY_NAMESPACE } });
      },
      setup: ({ manager, cluster, builder }) => {
        setupWidgetController(manager, cluster.client, builder);
      },
      converges: widgetsConverged,
      timeLimitMs: 240_000,
    });
    const cpu = process.cpuUsage(started);
    console.log(`widget-controller property: ${r.numRuns} cases, ${((cpu.user + cpu.system) / 1e6).toFixed(1)} s CPU`);
    expect(r).toEqual({ numRuns: RUNS, seed: 1 });
  }, 300_000);
});
