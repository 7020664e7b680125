// test/e2e/apimachinery/chunking.go re-implemented with @kubernetes/client-node against the simulator over HTTP.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { codeOf, type E2eCluster, startE2eCluster } from "./harness.js";

let c: E2eCluster;
let ns: string;
const TOTAL = 400;

beforeAll(async () => {
  c = await startE2eCluster();
  ns = await c.namespace("chunking");
  for (let i = 0; i < TOTAL; i++) {
    const name = `template-${String(i).padStart(4, "0")}`;
    await c.core.createNamespacedPodTemplate({
      namespace: ns,
      body: { metadata: { name }, template: { spec: { containers: [{ name: "test", image: "test2" }] } } },
    });
  }
});
afterAll(async () => {
  await c.close();
});

describe("[sig-api-machinery] Servers with support for API chunking (apimachinery/chunking.go)", () => {
  it("should return chunks of results for list calls", async () => {
    const limit = 17;
    let cont: string | undefined;
    let found = 0;
    let lastRv: string | undefined;
    for (;;) {
      const page = await c.core.listNamespacedPodTemplate({
        namespace: ns,
        limit,
        ...(cont !== undefined && { _continue: cont }),
      });
      expect(page.items.length).toBeLessThanOrEqual(limit);
      if (lastRv === undefined) lastRv = page.metadata?.resourceVersion;
      expect(page.metadata?.resourceVersion).toBe(lastRv);
      found += page.items.length;
      cont = page.metadata?._continue;
      if (cont === undefined || cont === "") {
        expect(page.metadata?.remainingItemCount).toBeUndefined();
        break;
      }
      expect(page.items.length).toBe(limit);
      expect(page.metadata?.remainingItemCount).toBe(TOTAL - found);
    }
    expect(found).toBe(TOTAL);
  });

  it("should support continue listing from the last key if the original version has been compacted away, though the list is inconsistent", async () => {
    const first = await c.core.listNamespacedPodTemplate({ namespace: ns, limit: 40 });
    const firstRv = first.metadata?.resourceVersion;
    const token = first.metadata?._continue;
    expect(token).toEqual(expect.any(String));
    // A write, then a compaction past the first page's revision (upstream waits for the apiserver's own).
    await c.core.createNamespacedPodTemplate({
      namespace: ns,
      body: { metadata: { name: "template-zzzz" }, template: { spec: { containers: [{ name: "t", image: "i" }] } } },
    });
    c.engine.faults.compact();
    // Until the cache observes the compaction (≤ 15 s) the snapshot may still answer; the test polls as upstream's.
    let inconsistent: string | undefined;
    await expect
      .poll(
        async () => {
          try {
            await c.core.listNamespacedPodTemplate({ namespace: ns, limit: 40, _continue: token });
            return 200;
          } catch (err) {
            const body = JSON.parse(String((err as { body?: unknown }).body ?? "{}")) as {
              metadata?: { continue?: string };
            };
            inconsistent = body.metadata?.continue;
            return codeOf(err);
          }
        },
        { timeout: 20_000, interval: 500 },
      )
      .toBe(410);
    expect(inconsistent).toEqual(expect.any(String));
    const second = await c.core.listNamespacedPodTemplate({ namespace: ns, limit: 40, _continue: inconsistent });
    expect(second.metadata?.resourceVersion).not.toBe(firstRv);
    expect(second.items[0]?.metadata?.name).toBe("template-0040");
    let rest = second.items.length;
    let cont = second.metadata?._continue;
    while (cont !== undefined && cont !== "") {
      const page = await c.core.listNamespacedPodTemplate({ namespace: ns, limit: 40, _continue: cont });
      rest += page.items.length;
      cont = page.metadata?._continue;
    }
    expect(40 + rest).toBe(TOTAL + 1);
  });
});
