// Example (c), the planted bug: @informer-ts/testing must FIND a handler that assumes onDelete always gets the object
// (broken by DeletedFinalStateUnknown) and print a shrunk story naming the tombstone; the fixed handler must pass.
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { naiveNamespaceIndex, namespaceIndex } from "../../examples/namespace-index/src/namespace-index.js";
import { checkNamespaceIndex } from "../../examples/namespace-index/src/property.js";
import { withoutFcSeed } from "../../packages/testing/src/internal/without-fc-seed.test-util.js";

// The example pins its seed: run without a FC_SEED override (pnpm test:explore sets one).
describe("example: namespace-index (a planted tombstone bug)", () => {
  it("the kit finds the naive handler's bug and prints a shrunk story with the tombstone, as the README shows", async () => {
    let story = "";
    const err = await withoutFcSeed(() =>
      checkNamespaceIndex(naiveNamespaceIndex, {
        log: (t) => {
          story = t;
        },
      }).then(
        () => undefined,
        (e: unknown) => e as Error,
      ),
    );
    expect(err).toBeInstanceOf(Error);
    expect(err!.message).toBe(story);
    expect(story).toMatch(
      /replay this case alone: FC_REPLAY=check\w+\/7\/[\d:]+ \(case seed \d+; the whole search again: FC_SEED=7\)/,
    );
    expect(story).toContain("✗ handlerNeverThrows");
    expect(story).toMatch(/notification delete \S+ \(DeletedFinalStateUnknown\)/);
    expect(story).toMatch(/handler-error onDelete\(\S+\): Cannot read properties of undefined/);
    // The index kept the deleted name too.
    expect(story).toMatch(/✗ indexMatchesServer\n {6}the index still holds \S+, deleted on the server/);
    // Shrunk: a handful of steps, not the generated dozens.
    const steps = Number(/history \((\d+) steps, shrunk\)/.exec(story)?.[1]);
    expect(steps).toBeGreaterThan(0);
    expect(steps).toBeLessThanOrEqual(5);
    // The README shows this very story (history and verdicts; its timeline is the same run's).
    const readme = readFileSync(new URL("../../examples/namespace-index/README.md", import.meta.url), "utf8");
    const head = story.slice(0, story.indexOf("  timeline (virtual ms):"));
    expect(readme).toContain(head);
  }, 300_000);

  it("the fixed handler passes the same property (in-process, and over HTTP)", async () => {
    expect(await withoutFcSeed(() => checkNamespaceIndex(namespaceIndex, { numRuns: 100 }))).toEqual({
      numRuns: 100,
      seed: 7,
    });
    expect(
      (await withoutFcSeed(() => checkNamespaceIndex(namespaceIndex, { numRuns: 10, transport: "http" }))).numRuns,
    ).toBe(10);
  }, 300_000);
});
