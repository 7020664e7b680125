import type { KubeObject, ListOptions } from "@informer-ts/apimachinery";
import { describe, expect, it } from "vitest";
import {
  ListWatch,
  newFilteredListWatch,
  newListWatchWithFieldSelector,
  toListWatcherWithWatchListSemantics,
} from "./listwatch-funcs.js";
import { FakeWatch } from "./testing/fake-controller-source.js";

function recorder() {
  const calls: { kind: string; options: ListOptions; signal: AbortSignal | undefined }[] = [];
  const lw = new ListWatch<KubeObject>({
    listFunc: async (options, signal) => {
      calls.push({ kind: "list", options, signal });
      options.limit = 999; // a function may scribble on its copy
      return { metadata: { resourceVersion: "1" }, items: [] };
    },
    watchFunc: async (options, signal) => {
      calls.push({ kind: "watch", options, signal });
      return new FakeWatch<KubeObject>();
    },
  });
  return { lw, calls };
}

describe("P6: ListWatch helpers", () => {
  it("P6: ListWatch calls its functions with a copy of the options and the signal", async () => {
    const { lw, calls } = recorder();
    const ac = new AbortController();
    const options: ListOptions = { resourceVersion: "0" };
    await lw.list(options, ac.signal);
    await lw.watch({ resourceVersion: "1" });
    expect(options).toEqual({ resourceVersion: "0" });
    expect(calls.map((c) => [c.kind, c.signal])).toEqual([
      ["list", ac.signal],
      ["watch", undefined],
    ]);
    expect(lw.disableChunking).toBe(false);
  });

  it("P6: DisableChunking exists but changes nothing", async () => {
    const lw = new ListWatch<KubeObject>({
      listFunc: async (o) => ({ metadata: { resourceVersion: String(o.limit) }, items: [] }),
      watchFunc: async () => new FakeWatch<KubeObject>(),
      disableChunking: true,
    });
    expect(lw.disableChunking).toBe(true);
    expect((await lw.list({ limit: 500 })).metadata.resourceVersion).toBe("500");
  });

  it("P6: the filtered ListWatch applies the options modifier to every list and watch", async () => {
    const { lw, calls } = recorder();
    const filtered = newFilteredListWatch(lw, (o) => {
      o.labelSelector = "app=web";
    });
    const original: ListOptions = { resourceVersion: "5" };
    await filtered.list(original);
    await filtered.watch({ resourceVersion: "6", allowWatchBookmarks: true });
    expect(original).toEqual({ resourceVersion: "5" });
    expect(calls.map((c) => c.options.labelSelector)).toEqual(["app=web", "app=web"]);
    expect(calls[1]!.options).toMatchObject({ resourceVersion: "6", allowWatchBookmarks: true });
    const withField = newListWatchWithFieldSelector(lw, "metadata.name=x");
    await withField.watch({});
    expect(calls[2]!.options.fieldSelector).toBe("metadata.name=x");
  });

  it("F26: toListWatcherWithWatchListSemantics declares support, and filtering keeps the declaration", () => {
    const { lw } = recorder();
    const unsupported = toListWatcherWithWatchListSemantics(lw, true);
    expect(unsupported.watchListSemanticsUnsupported).toBe(true);
    expect(newFilteredListWatch(unsupported, () => {}).watchListSemanticsUnsupported).toBe(true);
    expect(newFilteredListWatch(lw, () => {}).watchListSemanticsUnsupported).toBeUndefined();
  });

  it("rejects a ListWatch without functions", () => {
    expect(() => new ListWatch({} as never)).toThrow("ListWatch needs listFunc and watchFunc functions");
  });
});
