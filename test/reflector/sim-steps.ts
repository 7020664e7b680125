// The random steps of the sim property tests: writes (put/delete of five names) interleaved with the server faults
// the engine can inject (dropped watches, compaction, watch-cache re-initialization, 429/500 request faults, truncated
// watches, bookmark modes) and time passing. Shared by the convergence and the order properties.
import fc from "fast-check";
import { flush, type SimScenario } from "./sim-harness.js";

const NAMES = ["a", "b", "c", "d", "e"];

export type Step =
  | { readonly op: "put"; readonly name: string; readonly v: number }
  | { readonly op: "delete"; readonly name: string }
  | { readonly op: "drop-watches"; readonly asError: boolean }
  | { readonly op: "compact" }
  | { readonly op: "reinitialize"; readonly downtimeMs: number }
  | { readonly op: "fault"; readonly verb: "list" | "watch"; readonly code: 429 | 500 }
  | { readonly op: "truncate"; readonly afterEvents: number }
  | { readonly op: "bookmarks"; readonly mode: "on" | "no-periodic" | "off" }
  | { readonly op: "step"; readonly ms: number };

const name = fc.constantFrom(...NAMES);
export const step: fc.Arbitrary<Step> = fc.oneof(
  { weight: 4, arbitrary: fc.record({ op: fc.constant("put" as const), name, v: fc.nat(9) }) },
  { weight: 2, arbitrary: fc.record({ op: fc.constant("delete" as const), name }) },
  { weight: 1, arbitrary: fc.record({ op: fc.constant("drop-watches" as const), asError: fc.boolean() }) },
  { weight: 1, arbitrary: fc.record({ op: fc.constant("compact" as const) }) },
  {
    weight: 1,
    arbitrary: fc.record({ op: fc.constant("reinitialize" as const), downtimeMs: fc.constantFrom(0, 2000, 8000) }),
  },
  {
    weight: 1,
    arbitrary: fc.record({
      op: fc.constant("fault" as const),
      verb: fc.constantFrom("list" as const, "watch" as const),
      code: fc.constantFrom(429 as const, 500 as const),
    }),
  },
  { weight: 1, arbitrary: fc.record({ op: fc.constant("truncate" as const), afterEvents: fc.nat(2) }) },
  {
    weight: 1,
    arbitrary: fc.record({
      op: fc.constant("bookmarks" as const),
      mode: fc.constantFrom("on" as const, "no-periodic" as const, "off" as const),
    }),
  },
  { weight: 3, arbitrary: fc.record({ op: fc.constant("step" as const), ms: fc.constantFrom(0, 500, 1500, 60_000) }) },
);

export async function apply(s: SimScenario, st: Step): Promise<void> {
  const exists = (n: string) => s.sim.storage.get(s.sim.resource("configmaps"), "default", n) !== undefined;
  switch (st.op) {
    case "put":
      if (exists(st.name)) await s.update(st.name, String(st.v));
      else await s.create(st.name, String(st.v));
      break;
    case "delete":
      if (exists(st.name)) await s.remove(st.name);
      break;
    case "drop-watches":
      s.sim.dropWatches(undefined, st.asError);
      break;
    case "compact":
      s.sim.compact();
      break;
    case "reinitialize":
      s.sim.reinitializeCache("configmaps", st.downtimeMs);
      break;
    case "fault":
      if (st.code === 429) s.sim.faults.add({ type: "apf-429", verbs: [st.verb], count: 1, retryAfterSeconds: 1 });
      else s.sim.faults.add({ type: "status", code: 500, verbs: [st.verb], count: 1 });
      break;
    case "truncate":
      s.sim.faults.add({ type: "truncate-watch", verbs: ["watch"], count: 1, afterEvents: st.afterEvents });
      break;
    case "bookmarks":
      s.sim.setBookmarkMode(st.mode);
      break;
    case "step":
      await s.clock.step(st.ms);
      break;
  }
  await flush();
}
