// Engine tests of the admission plugins: an in-process engine on a FakeClock with the given admission settings.
import type { KubeObject } from "@informer-ts/apimachinery";
import { FakeClock, seededRand } from "@informer-ts/clock";
import fc from "fast-check";
import { expect } from "vitest";
import { SimApiServer } from "../sim-apiserver.js";
import type { SimApiServerOptions } from "../sim-apiserver-options.js";

/** A fresh engine (no compaction, no progress notifications); `admission` as `SimApiServerOptions.admission`. */
export function pluginEngine(admission?: SimApiServerOptions["admission"], seed = 7): SimApiServer {
  return new SimApiServer({
    clock: new FakeClock(),
    rand: seededRand(seed),
    progressNotifyIntervalMs: 0,
    compactionIntervalMs: 0,
    ...(admission !== undefined && { admission }),
  });
}

/** One generated write of {@link expectDeniedWritesChangeNothing}: the operation and how many data keys it writes. */
export type SizedWrite = readonly ["create" | "update" | "patch" | "delete", number];

/** Sequences of {@link SizedWrite}s. */
export const sizedWrites = (maxLength: number) =>
  fc.array(fc.tuple(fc.constantFrom("create", "update", "patch", "delete"), fc.integer({ min: 0, max: 4 })), {
    minLength: 1,
    maxLength,
  });

/**
 * The property "a denied write changes nothing", for a plugin configured on `e` to deny every ConfigMap delete and
 * every ConfigMap write leaving more than two data keys: applies `writes` to (or beside) `default/target` — created
 * here with one key — and checks that each is denied exactly then (`isDenial` recognises the plugin's error; any
 * other error fails), and that a denied one moves no revision, adds no storage event and leaves the object as it was.
 */
export async function expectDeniedWritesChangeNothing(
  e: SimApiServer,
  writes: readonly SizedWrite[],
  isDenial: (err: unknown) => boolean,
  setup: () => Promise<void>,
): Promise<void> {
  const cm = (name: string, data: Record<string, string>): KubeObject =>
    ({ apiVersion: "v1", kind: "ConfigMap", metadata: { name }, data }) as KubeObject;
  await e.create("configmaps", "default", cm("target", { k0: "v" }));
  await setup();
  const events: string[] = [];
  const unsubscribe = e.storage.subscribe({ onEvent: (ev) => events.push(`${ev.type} ${ev.key}`) });
  try {
    for (const [op, keys] of writes) {
      const data = Object.fromEntries(Array.from({ length: keys }, (_, i) => [`k${i}`, "v"]));
      const before = await e.get("configmaps", "default", "target");
      const rev = e.storage.currentRevision;
      const seen = events.length;
      let denied = false;
      try {
        if (op === "create") await e.create("configmaps", "default", cm(`n${events.length}`, data));
        else if (op === "update") await e.update("configmaps", "default", "target", { ...before, data });
        else if (op === "patch")
          await e.patch("configmaps", "default", "target", "application/merge-patch+json", JSON.stringify({ data }));
        else await e.delete("configmaps", "default", "target");
      } catch (err) {
        if (!isDenial(err)) throw err;
        denied = true;
      }
      const shouldDeny =
        op === "delete" ||
        keys > 2 ||
        (op === "patch" && Object.keys({ ...(before.data as object), ...data }).length > 2);
      expect(denied).toBe(shouldDeny);
      if (denied) {
        expect(e.storage.currentRevision).toBe(rev);
        expect(events.length).toBe(seen);
        expect(await e.get("configmaps", "default", "target")).toEqual(before);
      }
    }
  } finally {
    unsubscribe();
  }
}
