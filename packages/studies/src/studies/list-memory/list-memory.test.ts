// Runs list-memory small: the child process is the built dist/studies/list-memory/list-memory-child.js, so the package (and
// its dependencies) are built first, incrementally, as cli.test.ts does.
import { execFileSync } from "node:child_process";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { beforeAll, describe, expect, it } from "vitest";
import { pins, runListMemory } from "./list-memory.js";
import type { ListMemoryChildResult } from "./list-memory-child.js";

const pkg = dirname(dirname(dirname(dirname(fileURLToPath(import.meta.url)))));
const repo = dirname(dirname(pkg));

beforeAll(() => {
  execFileSync(join(repo, "node_modules", ".bin", "tsc"), ["-b", join(pkg, "tsconfig.json")], { stdio: "inherit" });
}, 180_000);

describe("list-memory (002)", () => {
  it("the child reports heap figures for each sync, and nothing pins a list: no response alive, no sliced body", async () => {
    const r = await runListMemory({ objects: 800, repeats: 1, variants: ["list-rv0"] });
    expect(r.variants).toHaveLength(1);
    for (const v of r.variants) {
      expect(v.figures.stored).toBe(800);
      // ~1 KiB objects: the store is hundreds of KiB at least, and the peak is at least what stays
      expect(v.figures.retainedHeapBytes).toBeGreaterThan(400_000);
      expect(v.figures.peakHeapBytes).toBeGreaterThanOrEqual(v.figures.retainedHeapBytes ?? 0);
      expect(v.figures.liveAtListBytes).toBeGreaterThan(400_000);
      expect(v.figures.bodyBytes).toBeGreaterThan(800 * 900);
      // the list response and its items array were seen and collected
      expect(v.figures.listsSeen).toBe(2);
      expect(v.figures.listsAlive).toBe(0);
      expect(v.figures.pins).toBe(0);
      // the heap snapshot was searched: no sliced string keeps a body-sized parent alive
      expect(v.figures.slicedStrings).toBeGreaterThanOrEqual(0);
      expect(v.figures.slicedParentBytes).toBe(0);
    }
    expect(r.summary.some((row) => row.measured.endsWith("→ nothing pinned"))).toBe(true);
    expect(r.charts?.[0]?.frame.id).toBe("heap");
  }, 120_000);

  it("calls a retained response, a pinned body or retained Buffers pinning", () => {
    const clean: ListMemoryChildResult = {
      variant: "list-rv0",
      ok: true,
      stored: 1,
      peakHeap: 1,
      liveAtList: 1,
      bodyBytes: 1,
      retainedHeap: 1,
      retainedArrayBuffers: 0,
      listsAlive: 0,
      listsSeen: 2,
      slicedStrings: 3,
      slicedParentBytes: 100,
      syncMs: 1,
    };
    expect(pins(clean)).toBe(false);
    expect(pins({ ...clean, listsAlive: 1 })).toBe(true);
    expect(pins({ ...clean, slicedParentBytes: 8 << 20 })).toBe(true);
    expect(pins({ ...clean, retainedArrayBuffers: 8 << 20 })).toBe(true);
  });

  it("compares the copy: the verdict row names the retained difference and the default", async () => {
    const r = await runListMemory({
      objects: 400,
      repeats: 1,
      snapshot: false,
      variants: ["list-rv0", "list-rv0-copy"],
    });
    const verdict = r.summary.find((row) => row.variant === "verdict");
    expect(verdict?.measured).toMatch(
      /^retains \d+ % (more|less) heap, peak .* pins nothing without it → default off$/,
    );
    expect(r.variants.map((v) => v.figures.slicedStrings)).toEqual([-1, -1]);
  }, 120_000);

  it("refuses bad options, naming them", async () => {
    await expect(runListMemory({ objects: 0 })).rejects.toThrow(/objects must be an integer ≥ 1, got 0/);
  });
});
