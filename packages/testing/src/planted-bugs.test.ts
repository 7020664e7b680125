// The planted-bug table of issue #20: each class of controller bug a user plants must be found by checkController
// with a short story, the fixed version must pass, and the printed replay token must reproduce the exact case (the
// story byte for byte). Each row prints what the closing note records: cases to find, story lines, replay time.
import type { KubeObject } from "@informer-ts/apimachinery";
import { builtinResources } from "@informer-ts/client";
import { ignoreAlreadyExists, ignoreNotFound, type Reconciler } from "@informer-ts/controller";
import { describe, expect, it } from "vitest";
import { type CheckControllerOptions, checkController, runControllerCase } from "./check-controller.js";
import { gadgetCrd, gadgets } from "./internal/gadget-crd.test-util.js";
import { withoutFcSeed } from "./internal/without-fc-seed.test-util.js";
import type { ServerState } from "./server-state.js";

const { configmaps, secrets } = builtinResources;
const labelOf = (o: KubeObject | undefined, key: string) => o?.metadata?.labels?.[key];
const b64 = (s: string) => Buffer.from(s).toString("base64");

/**
 * Hunts the planted bug: the property must fail with `invariant` broken and a story under 120 lines, and the
 * printed token must replay the same story. Returns the row of the table.
 */
async function hunt(options: CheckControllerOptions, invariant: RegExp) {
  const err = await withoutFcSeed(() =>
    checkController(options).then(
      () => undefined,
      (e: unknown) => e as Error,
    ),
  );
  expect(err, "the planted bug was not found").toBeInstanceOf(Error);
  const text = err!.message;
  expect(text).toMatch(invariant);
  const story = text.slice(0, text.lastIndexOf("\n  ("));
  const lines = story.split("\n").length;
  expect(lines).toBeLessThan(120);
  const token = /FC_REPLAY=(\S+)/.exec(text)![1]!;
  const started = performance.now();
  const replayed = await runControllerCase(options, token);
  const replayMs = performance.now() - started;
  expect(replayed.story).toBe(story);
  const found = Number(/found at case (\d+)/.exec(text)![1]);
  const steps = Number(/history \((\d+) steps, shrunk\)/.exec(text)![1]);
  const row = { property: options.property, found, steps, lines, replayMs: Math.round(replayMs) };
  console.log(`planted bug ${JSON.stringify(row)}`);
  return row;
}

async function passes(options: CheckControllerOptions) {
  const r = await withoutFcSeed(() => checkController(options));
  expect(r.numRuns).toBe(options.numRuns);
}

// 1. Label bucket: a Secret per ConfigMap records its `app` bucket; the buggy one never re-buckets (a label change or
//    removal leaves the old bucket). Only configured labels (add/remove one key) reach the bug.
function bucketSetup(fixed: boolean): CheckControllerOptions["setup"] {
  return ({ builder, manager, cluster }) => {
    const cache = manager.informerFor(secrets);
    const reconcile: Reconciler = async (req, ctx) => {
      const cm = await cluster.client.get(configmaps, req.name, { namespace: req.namespace }).catch(ignoreNotFound);
      const name = `${req.name}-bucket`;
      const opts = { namespace: req.namespace };
      const app = labelOf(cm, "app");
      const current = cache.getIndexer().getByKey(`${req.namespace}/${name}`) as KubeObject | undefined;
      if (app === undefined) {
        if (fixed && current !== undefined)
          await cluster.client.delete(secrets, name, opts, ctx.signal).catch(ignoreNotFound);
        return;
      }
      const secret = {
        apiVersion: "v1",
        kind: "Secret",
        metadata: { name, namespace: req.namespace },
        data: { app: b64(app) },
      };
      if (current === undefined)
        await cluster.client.create(secrets, secret, {}, ctx.signal).catch(ignoreAlreadyExists);
      else if (fixed && (current.data as Record<string, string> | undefined)?.app !== b64(app)) {
        const m = { ...secret.metadata, resourceVersion: current.metadata?.resourceVersion };
        await cluster.client.update(secrets, { ...secret, metadata: m }, {}, ctx.signal);
      }
    };
    builder()
      .for(configmaps)
      .watches(secrets, (s) => {
        const n = s.metadata?.name ?? "";
        return n.endsWith("-bucket") ? [{ namespace: s.metadata?.namespace ?? "", name: n.slice(0, -7) }] : [];
      })
      .complete(reconcile);
  };
}
function bucketed(state: ServerState): string[] {
  const out: string[] = [];
  for (const cm of state.list(configmaps)) {
    const ns = cm.metadata!.namespace!;
    const want = labelOf(cm, "app");
    const got = (state.get(secrets, ns, `${cm.metadata!.name}-bucket`)?.data as Record<string, string> | undefined)
      ?.app;
    if ((want === undefined ? undefined : b64(want)) !== got)
      out.push(`${ns}/${cm.metadata!.name}: bucket ${got} is not app=${want}`);
  }
  return out;
}

// 2. 409 forever: the copy is created on every reconcile; once it exists each create answers 409 and the key retries.
function copySetup(fixed: boolean): CheckControllerOptions["setup"] {
  return ({ builder, cluster }) => {
    builder()
      .for(configmaps)
      .complete(async (req, ctx) => {
        const copy = {
          apiVersion: "v1",
          kind: "Secret",
          metadata: { name: `${req.name}-copy`, namespace: req.namespace },
        };
        const created = cluster.client.create(secrets, copy, {}, ctx.signal);
        await (fixed ? created.catch(ignoreAlreadyExists) : created);
      });
  };
}
const copied = (state: ServerState) =>
  state
    .list(configmaps)
    .filter((cm) => state.get(secrets, cm.metadata!.namespace!, `${cm.metadata!.name}-copy`) === undefined)
    .map((cm) => `${cm.metadata!.name}-copy is missing`);

// 3. Stale double-create: a child with a generated name, created whenever the child cache shows none; a stale cache
//    (a watch down, a relist pending) makes a second one. Fixed: a deterministic name, 409 ignored.
function childSetup(fixed: boolean): CheckControllerOptions["setup"] {
  return ({ builder, manager, cluster }) => {
    const children = manager.informerFor(secrets);
    builder()
      .for(configmaps)
      .watches(secrets, (s) => {
        const parent = labelOf(s, "parent");
        return parent === undefined ? [] : [{ namespace: s.metadata?.namespace ?? "", name: parent }];
      })
      .complete(async (req, ctx) => {
        const cm = await cluster.client.get(configmaps, req.name, { namespace: req.namespace }).catch(ignoreNotFound);
        const mine = children
          .getIndexer()
          .list()
          .filter((s) => s.metadata?.namespace === req.namespace && labelOf(s as KubeObject, "parent") === req.name);
        if (cm === undefined) {
          for (const s of mine) {
            await cluster.client
              .delete(secrets, s.metadata!.name!, { namespace: req.namespace }, ctx.signal)
              .catch(ignoreNotFound);
          }
          return;
        }
        if (mine.length > 0) return;
        const metadata = {
          namespace: req.namespace,
          labels: { parent: req.name },
          ...(fixed ? { name: `${req.name}-child` } : { generateName: `${req.name}-child-` }),
        };
        await cluster.client
          .create(secrets, { apiVersion: "v1", kind: "Secret", metadata }, {}, ctx.signal)
          .catch(ignoreAlreadyExists);
      });
  };
}
function oneChild(state: ServerState): string[] {
  const out: string[] = [];
  for (const cm of state.list(configmaps)) {
    const ns = cm.metadata!.namespace!;
    const n = state.list(secrets, ns).filter((s) => labelOf(s, "parent") === cm.metadata!.name).length;
    if (n !== 1) out.push(`${ns}/${cm.metadata!.name} has ${n} children`);
  }
  return out;
}

// 4. Ignored deletion: the mirror is written on every change but never deleted with its ConfigMap.
function mirrorSetup(fixed: boolean): CheckControllerOptions["setup"] {
  return ({ builder, cluster }) => {
    builder()
      .for(configmaps)
      .complete(async (req, ctx) => {
        const opts = { namespace: req.namespace };
        const cm = await cluster.client.get(configmaps, req.name, opts).catch(ignoreNotFound);
        const name = `${req.name}-mirror`;
        if (cm === undefined) {
          if (fixed) await cluster.client.delete(secrets, name, opts, ctx.signal).catch(ignoreNotFound);
          return;
        }
        const secret = { apiVersion: "v1", kind: "Secret", metadata: { name, namespace: req.namespace } };
        await cluster.client.create(secrets, secret, {}, ctx.signal).catch(ignoreAlreadyExists);
      });
  };
}
const noOrphanMirror = (state: ServerState) =>
  state
    .list(secrets)
    .filter((s) => s.metadata!.name!.endsWith("-mirror"))
    .filter((s) => state.get(configmaps, s.metadata!.namespace!, s.metadata!.name!.slice(0, -7)) === undefined)
    .map((s) => `${s.metadata!.namespace}/${s.metadata!.name} outlived its ConfigMap`);

// 5. Self-retriggering reconcile: stamps the ConfigMap with its reconcile count on every pass — its own write is the
//    next event. Fixed: writes the stamp only when it is missing.
function stampSetup(fixed: boolean): CheckControllerOptions["setup"] {
  return ({ builder, cluster }) => {
    builder()
      .for(configmaps)
      .complete(async (req, ctx) => {
        const cm = await cluster.client.get(configmaps, req.name, { namespace: req.namespace }).catch(ignoreNotFound);
        if (cm === undefined) return;
        const seen = Number(cm.metadata?.annotations?.["example.com/seen"] ?? "0");
        if (fixed && seen > 0) return;
        const annotations = { ...cm.metadata?.annotations, "example.com/seen": String(seen + 1) };
        await cluster.client.update(configmaps, { ...cm, metadata: { ...cm.metadata, annotations } }, {}, ctx.signal);
      });
  };
}
const stamped = (state: ServerState) =>
  state
    .list(configmaps)
    .filter((cm) => cm.metadata?.annotations?.["example.com/seen"] === undefined)
    .map((cm) => `${cm.metadata!.namespace}/${cm.metadata!.name} is not stamped`);

// 6. A CRD-backed controller: each Gadget gets a ConfigMap `<name>-gadget` with its size and color. The buggy one
//    rewrites it only when the size changed — a color change (a spec change the schema allows) is lost.
interface GadgetSpec {
  readonly size?: number;
  readonly color?: string;
}
function gadgetSetup(fixed: boolean): CheckControllerOptions["setup"] {
  return ({ builder, cluster }) => {
    builder()
      .for(gadgets)
      .complete(async (req, ctx) => {
        const opts = { namespace: req.namespace };
        const g = await cluster.client.get(gadgets, req.name, opts).catch(ignoreNotFound);
        const name = `${req.name}-gadget`;
        if (g === undefined || g.metadata?.deletionTimestamp !== undefined) {
          await cluster.client.delete(configmaps, name, opts, ctx.signal).catch(ignoreNotFound);
          return;
        }
        const spec = (g as { spec?: GadgetSpec }).spec ?? {};
        const data = { size: String(spec.size), color: String(spec.color) };
        const cur = await cluster.client.get(configmaps, name, opts).catch(ignoreNotFound);
        const body = { apiVersion: "v1", kind: "ConfigMap", metadata: { name, namespace: req.namespace }, data };
        if (cur === undefined) await cluster.client.create(configmaps, body, {}, ctx.signal);
        else if (cur.data?.size !== data.size || (fixed && cur.data?.color !== data.color)) {
          const m = { ...body.metadata, resourceVersion: cur.metadata?.resourceVersion };
          await cluster.client.update(configmaps, { ...body, metadata: m }, {}, ctx.signal);
        }
      });
  };
}
function gadgetsMirrored(state: ServerState): string[] {
  const out: string[] = [];
  for (const g of state.list(gadgets)) {
    if (g.metadata?.deletionTimestamp !== undefined) continue;
    const ns = g.metadata!.namespace!;
    const spec = (g as { spec?: GadgetSpec }).spec ?? {};
    const data = state.get(configmaps, ns, `${g.metadata!.name}-gadget`)?.data as Record<string, string> | undefined;
    if (data?.size !== String(spec.size) || data?.color !== String(spec.color)) {
      out.push(`${ns}/${g.metadata!.name}-gadget does not show size ${spec.size}, color ${spec.color}`);
    }
  }
  return out;
}
const gadgetHistory = {
  faults: false,
  maxSteps: 12,
  namespaces: ["default"],
  weights: { writes: 2 },
  resources: [{ crd: gadgetCrd, finalizer: "example.com/audit" }],
};

const TIMEOUT = 600_000;

describe("planted bugs: found with a short story, fixed versions pass, tokens replay the exact case", () => {
  it(
    "label bucket: found through the configured labels (add/remove one key)",
    async () => {
      const history = { faults: false, maxSteps: 12, labels: { app: ["web", "db", undefined] } };
      const base = { setup: bucketSetup(false), converges: bucketed, history, seed: 1, numRuns: 100 };
      await hunt({ ...base, property: "bucket" }, /✗ controllerConverges\n.*bucket/);
      await passes({ ...base, setup: bucketSetup(true), property: "bucket-fixed", numRuns: 25 });
    },
    TIMEOUT,
  );

  it(
    "409 forever: found by noKeyStuck",
    async () => {
      const base = { setup: copySetup(false), converges: copied, history: { faults: false, maxSteps: 12 }, seed: 1 };
      await hunt({ ...base, property: "copy", numRuns: 100 }, /✗ noKeyStuck\n.*already exists/);
      await passes({ ...base, setup: copySetup(true), property: "copy-fixed", numRuns: 25 });
    },
    TIMEOUT,
  );

  it(
    "stale double-create: found under faults (a stale child cache)",
    async () => {
      const base = { setup: childSetup(false), converges: oneChild, history: { maxSteps: 15 }, seed: 2 };
      await hunt({ ...base, property: "child", numRuns: 200 }, /✗ controllerConverges\n.* has ([2-9]|\d{2,}) children/);
      await passes({ ...base, setup: childSetup(true), property: "child-fixed", numRuns: 25 });
    },
    TIMEOUT,
  );

  it(
    "ignored deletion: the mirror outlives its ConfigMap",
    async () => {
      const base = {
        setup: mirrorSetup(false),
        converges: noOrphanMirror,
        history: { faults: false, maxSteps: 12 },
        seed: 1,
      };
      await hunt({ ...base, property: "mirror", numRuns: 100 }, /✗ controllerConverges\n.*outlived its ConfigMap/);
      await passes({ ...base, setup: mirrorSetup(true), property: "mirror-fixed", numRuns: 25 });
    },
    TIMEOUT,
  );

  it(
    "self-retriggering reconcile: found by reconcileStorm",
    async () => {
      const base = { setup: stampSetup(false), converges: stamped, history: { faults: false, maxSteps: 12 }, seed: 1 };
      await hunt({ ...base, property: "stamp", numRuns: 100 }, /✗ reconcileStorm\n.*keeps re-triggering itself/);
      await passes({ ...base, setup: stampSetup(true), property: "stamp-fixed", numRuns: 25 });
    },
    TIMEOUT,
  );

  it(
    "a CRD-backed controller: found by a history generated from the CRD's schema",
    async () => {
      const base = { setup: gadgetSetup(false), converges: gadgetsMirrored, history: gadgetHistory, seed: 1 };
      await hunt({ ...base, property: "gadget", numRuns: 100 }, /✗ controllerConverges\n.*-gadget does not show/);
      await passes({ ...base, setup: gadgetSetup(true), property: "gadget-fixed", numRuns: 25 });
    },
    TIMEOUT,
  );
});
