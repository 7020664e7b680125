import { test as fcTest } from "@fast-check/vitest";
import {
  isResourceExpired,
  type KubeList,
  type KubeObject,
  type ListOptions,
  newGone,
  newResourceExpired,
} from "@informer-ts/apimachinery";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { DEFAULT_PAGE_BUFFER_SIZE, DEFAULT_PAGE_SIZE, ListPager, newListPager } from "./pager.js";

function obj(name: string): KubeObject {
  return { metadata: { name } };
}

function list(count: number, rv: string): KubeList<KubeObject> {
  const items: KubeObject[] = [];
  for (let i = 0; i < count; i++) items.push(obj(String(i)));
  return { metadata: { resourceVersion: rv }, items };
}

/** Port of client-go's `testPager`: serves `remaining` items in pages, checking the pager's invariants. */
class TestPager {
  index = 0;
  last = 0;
  continuing = false;
  done = false;
  readonly violations: string[] = [];
  readonly calls: ListOptions[] = [];

  constructor(
    public remaining: number,
    public expectPage: number,
    readonly rv = "rv:20",
  ) {}

  reset(): void {
    this.continuing = false;
    this.remaining += this.index;
    this.index = 0;
    this.last = 0;
    this.done = false;
  }

  pagedList = async (options: ListOptions): Promise<KubeList<KubeObject>> => {
    this.calls.push({ ...options });
    if (this.done) {
      this.violations.push("did not expect additional call to paged list");
      throw new Error("unexpected list call");
    }
    const expectedContinue = `${this.rv}:${this.last}`;
    const limit = options.limit ?? 0;
    if (limit !== this.expectPage || (this.continuing && options.continue !== expectedContinue)) {
      this.violations.push(
        `expected limit ${this.expectPage} and continue ${expectedContinue}, got ${JSON.stringify(options)}`,
      );
      throw new Error("invariant violated");
    }
    if (options.continue && options.resourceVersion) {
      this.violations.push("resourceVersion is not allowed with continue");
      throw new Error("invariant violated");
    }
    if (options.continue && options.resourceVersionMatch) {
      this.violations.push("resourceVersionMatch is not allowed with continue");
      throw new Error("invariant violated");
    }
    const out: KubeList<KubeObject> = { metadata: {}, items: [] };
    const total = limit === 0 ? this.remaining : limit;
    for (let i = 0; i < total && this.remaining > 0; i++) {
      out.items.push(obj(String(this.index)));
      this.remaining--;
      this.index++;
    }
    this.last = this.index;
    if (this.remaining > 0) {
      out.metadata.continue = `${this.rv}:${this.last}`;
      this.continuing = true;
    } else {
      this.done = true;
    }
    out.metadata.resourceVersion = this.rv;
    return out;
  };

  expiresOnSecondPage = async (options: ListOptions): Promise<KubeList<KubeObject>> => {
    if (this.continuing) {
      this.done = true;
      throw newResourceExpired("this list has expired");
    }
    return this.pagedList(options);
  };

  expiresOnSecondPageThenFullList = async (options: ListOptions): Promise<KubeList<KubeObject>> => {
    if (this.continuing) {
      this.reset();
      this.expectPage = 0;
      throw newResourceExpired("this list has expired");
    }
    return this.pagedList(options);
  };
}

describe("P1: defaults", () => {
  it("P1: pager.New uses page size 500, buffer 10 and full list if expired", () => {
    const p = newListPager(async () => list(0, "1"));
    expect(p.pageSize).toBe(DEFAULT_PAGE_SIZE);
    expect(DEFAULT_PAGE_SIZE).toBe(500);
    expect(p.pageBufferSize).toBe(DEFAULT_PAGE_BUFFER_SIZE);
    expect(DEFAULT_PAGE_BUFFER_SIZE).toBe(10);
    expect(p.fullListIfExpired).toBe(true);
  });
});

describe("TestListPager_List (P2, P3)", () => {
  interface Case {
    name: string;
    pager: TestPager;
    fn: (tp: TestPager) => (o: ListOptions) => Promise<KubeList<KubeObject>>;
    fullListIfExpired?: boolean;
    options?: ListOptions;
    want?: KubeList<KubeObject>;
    wantPaged: boolean;
    wantErr?: boolean;
    isExpired?: boolean;
  }
  const cases: Case[] = [
    {
      name: "empty page",
      pager: new TestPager(0, 10),
      fn: (p) => p.pagedList,
      want: list(0, "rv:20"),
      wantPaged: false,
    },
    { name: "one page", pager: new TestPager(9, 10), fn: (p) => p.pagedList, want: list(9, "rv:20"), wantPaged: false },
    {
      name: "one full page",
      pager: new TestPager(10, 10),
      fn: (p) => p.pagedList,
      want: list(10, "rv:20"),
      wantPaged: false,
    },
    {
      name: "two pages",
      pager: new TestPager(11, 10),
      fn: (p) => p.pagedList,
      want: list(11, "rv:20"),
      wantPaged: true,
    },
    {
      name: "three pages",
      pager: new TestPager(21, 10),
      fn: (p) => p.pagedList,
      want: list(21, "rv:20"),
      wantPaged: true,
    },
    {
      name: "expires on second page",
      pager: new TestPager(21, 10),
      fn: (p) => p.expiresOnSecondPage,
      wantPaged: true,
      wantErr: true,
      isExpired: true,
    },
    {
      name: "expires on second page and then lists",
      pager: new TestPager(21, 10),
      fn: (p) => p.expiresOnSecondPageThenFullList,
      fullListIfExpired: true,
      want: list(21, "rv:20"),
      wantPaged: true,
    },
    {
      name: "two pages with resourceVersion",
      pager: new TestPager(11, 10),
      fn: (p) => p.pagedList,
      options: { resourceVersion: "rv:10" },
      want: list(11, "rv:20"),
      wantPaged: true,
    },
    {
      name: "two pages with resourceVersion and resourceVersionMatch",
      pager: new TestPager(11, 10),
      fn: (p) => p.pagedList,
      options: { resourceVersion: "rv:10", resourceVersionMatch: "NotOlderThan" },
      want: list(11, "rv:20"),
      wantPaged: true,
    },
  ];
  for (const tc of cases) {
    it(tc.name, async () => {
      const p = new ListPager(tc.fn(tc.pager));
      p.pageSize = 10;
      p.fullListIfExpired = tc.fullListIfExpired ?? false;
      let err: unknown;
      let got: { list: KubeList<KubeObject>; paginated: boolean } | undefined;
      try {
        got = await p.list(tc.options ?? {});
      } catch (e) {
        err = e;
      }
      expect(tc.pager.violations).toEqual([]);
      expect(err !== undefined).toBe(tc.wantErr ?? false);
      expect(isResourceExpired(err)).toBe(tc.isExpired ?? false);
      if (tc.want !== undefined) {
        expect(got?.list.items).toEqual(tc.want.items);
        expect(got?.list.metadata.resourceVersion).toBe(tc.want.metadata.resourceVersion);
        expect(got?.paginated).toBe(tc.wantPaged);
      }
    });
  }

  it("P3: the full-list fallback uses the originally requested RV and RVM, without limit or continue", async () => {
    const calls: ListOptions[] = [];
    const p = new ListPager<KubeObject>(async (o) => {
      calls.push({ ...o });
      if (o.continue === "c1") throw newResourceExpired("expired");
      if (o.limit === undefined) return list(3, "9");
      return { metadata: { resourceVersion: "5", continue: "c1" }, items: [obj("a")] };
    });
    p.pageSize = 1;
    const got = await p.list({ resourceVersion: "4", resourceVersionMatch: "NotOlderThan", labelSelector: "a=b" });
    expect(got.list.items).toHaveLength(3);
    expect(got.paginated).toBe(true);
    expect(calls).toEqual([
      { resourceVersion: "4", resourceVersionMatch: "NotOlderThan", labelSelector: "a=b", limit: 1 },
      { labelSelector: "a=b", limit: 1, continue: "c1" },
      { resourceVersion: "4", resourceVersionMatch: "NotOlderThan", labelSelector: "a=b" },
    ]);
  });

  it("P3: a Gone (not Expired) continuation error is returned, not retried as a full list", async () => {
    let calls = 0;
    const p = new ListPager<KubeObject>(async (o) => {
      calls++;
      if (o.continue) throw newGone("gone");
      return { metadata: { resourceVersion: "5", continue: "c1" }, items: [obj("a")] };
    });
    await expect(p.list({})).rejects.toMatchObject({ code: 410, reason: "Gone" });
    expect(calls).toBe(2);
  });

  it("P3: an Expired error on the first page is returned (no continue yet)", async () => {
    let calls = 0;
    const p = new ListPager<KubeObject>(async () => {
      calls++;
      throw newResourceExpired("too old");
    });
    await expect(p.list({ resourceVersion: "3" })).rejects.toSatisfy(isResourceExpired);
    expect(calls).toBe(1);
  });

  it("P2: a page that is not a list is an error naming the problem", async () => {
    const p = new ListPager<KubeObject>(async () => ({ metadata: {} }) as unknown as KubeList<KubeObject>);
    await expect(p.list({})).rejects.toThrow(/returned object must be a list/);
  });

  it("P2: an aborted signal stops before the next page with the abort reason", async () => {
    const ac = new AbortController();
    let calls = 0;
    const p = new ListPager<KubeObject>(async () => {
      calls++;
      ac.abort(new Error("stop now"));
      return { metadata: { resourceVersion: "5", continue: "c1" }, items: [obj("a")] };
    });
    await expect(p.list({}, ac.signal)).rejects.toThrow("stop now");
    expect(calls).toBe(1);
  });

  it("P5: listWithAlloc detaches accumulated items; list keeps the page objects", async () => {
    const pages = [
      { metadata: { resourceVersion: "5", continue: "c1" }, items: [obj("a")] },
      { metadata: { resourceVersion: "5" }, items: [obj("b")] },
    ];
    const fn = async (o: ListOptions) => (o.continue ? pages[1]! : pages[0]!);
    const plain = await new ListPager<KubeObject>(fn).list({});
    expect(plain.list.items[0]).toBe(pages[0]!.items[0]);
    const alloc = await new ListPager<KubeObject>(fn).listWithAlloc({});
    expect(alloc.list.items[0]).not.toBe(pages[0]!.items[0]);
    expect(alloc.list.items[0]!.metadata).not.toBe(pages[0]!.items[0]!.metadata);
    expect(alloc.list.items).toEqual([obj("a"), obj("b")]);
  });

  fcTest.prop([fc.integer({ min: 0, max: 60 }), fc.integer({ min: 1, max: 15 }), fc.boolean()], { numRuns: 60 })(
    "P2 property: every item once, in order, RV of the first page, paginated iff more than one page",
    async (count, pageSize, alloc) => {
      const tp = new TestPager(count, pageSize);
      const p = new ListPager(tp.pagedList);
      p.pageSize = pageSize;
      const got = alloc ? await p.listWithAlloc({ resourceVersion: "0" }) : await p.list({ resourceVersion: "0" });
      expect(tp.violations).toEqual([]);
      expect(got.list.items.map((o) => o.metadata?.name)).toEqual(list(count, "").items.map((o) => o.metadata?.name));
      expect(got.list.metadata.resourceVersion).toBe("rv:20");
      expect(got.paginated).toBe(count > pageSize);
      expect(tp.calls.length).toBe(Math.max(1, Math.ceil(count / pageSize)));
    },
  );
});

describe("TestListPager_EachListItem (P4)", () => {
  interface Case {
    name: string;
    pager: TestPager;
    fn: (tp: TestPager) => (o: ListOptions) => Promise<KubeList<KubeObject>>;
    want: number;
    wantErr?: boolean;
    isExpired?: boolean;
    processorErrorOnItem?: number;
    cancelOnItem?: number;
  }
  const cases: Case[] = [
    { name: "empty page", pager: new TestPager(0, 10), fn: (p) => p.pagedList, want: 0 },
    { name: "one page", pager: new TestPager(9, 10), fn: (p) => p.pagedList, want: 9 },
    { name: "one full page", pager: new TestPager(10, 10), fn: (p) => p.pagedList, want: 10 },
    { name: "two pages", pager: new TestPager(11, 10), fn: (p) => p.pagedList, want: 11 },
    { name: "three pages", pager: new TestPager(21, 10), fn: (p) => p.pagedList, want: 21 },
    {
      name: "expires on second page",
      pager: new TestPager(21, 10),
      fn: (p) => p.expiresOnSecondPage,
      want: 10,
      wantErr: true,
      isExpired: true,
    },
    {
      name: "error processing item",
      pager: new TestPager(51, 10),
      fn: (p) => p.pagedList,
      want: 3,
      wantErr: true,
      processorErrorOnItem: 3,
    },
    {
      name: "cancel context while processing",
      pager: new TestPager(51, 10),
      fn: (p) => p.pagedList,
      want: 10,
      wantErr: true,
      cancelOnItem: 3,
    },
  ];
  const processorErr = new Error("processor error");
  for (const tc of cases) {
    it(tc.name, async () => {
      const ac = new AbortController();
      const p = new ListPager(tc.fn(tc.pager));
      p.pageSize = 10;
      const items: KubeObject[] = [];
      let err: unknown;
      try {
        await p.eachListItem(
          {},
          (o) => {
            items.push(o);
            if (tc.processorErrorOnItem !== undefined && items.length === tc.processorErrorOnItem) throw processorErr;
            if (tc.cancelOnItem !== undefined && items.length === tc.cancelOnItem) ac.abort(new Error("cancelled"));
          },
          ac.signal,
        );
      } catch (e) {
        err = e;
      }
      expect(tc.pager.violations).toEqual([]);
      expect(err !== undefined).toBe(tc.wantErr ?? false);
      expect(isResourceExpired(err)).toBe(tc.isExpired ?? false);
      if (tc.processorErrorOnItem !== undefined) expect(err).toBe(processorErr);
      expect(items).toEqual(list(tc.want, "").items);
    });
  }

  it("P4: a negative page buffer size is an error", async () => {
    const p = new ListPager(new TestPager(1, 10).pagedList);
    p.pageBufferSize = -1;
    await expect(p.eachListItem({}, () => {})).rejects.toThrow("ListPager.pageBufferSize must be >= 0, got -1");
  });

  it("P4: the RV is not cleared on continue requests (upstream quirk) and there is no full-list fallback", async () => {
    const calls: ListOptions[] = [];
    const p = new ListPager<KubeObject>(async (o) => {
      calls.push({ ...o });
      if (o.continue) throw newResourceExpired("expired");
      return { metadata: { resourceVersion: "5", continue: "c1" }, items: [obj("a")] };
    });
    await expect(p.eachListItem({ resourceVersion: "7" }, () => {})).rejects.toSatisfy(isResourceExpired);
    expect(calls).toEqual([
      { resourceVersion: "7", limit: 500 },
      { resourceVersion: "7", limit: 500, continue: "c1" },
    ]);
  });

  it("P5: eachListItemWithAlloc hands out detached copies", async () => {
    const page = list(3, "1");
    const p = new ListPager<KubeObject>(async () => page);
    const seen: KubeObject[] = [];
    await p.eachListItemWithAlloc({}, (o) => {
      seen.push(o);
    });
    expect(seen).toEqual(page.items);
    for (let i = 0; i < 3; i++) expect(seen[i]).not.toBe(page.items[i]);
  });

  it("P4: an async fn is awaited item by item and its rejection stops everything", async () => {
    const tp = new TestPager(30, 10);
    const p = new ListPager(tp.pagedList);
    p.pageSize = 10;
    p.pageBufferSize = 0;
    const seen: string[] = [];
    await expect(
      p.eachListItem({}, async (o) => {
        await Promise.resolve();
        seen.push(o.metadata?.name ?? "");
        if (seen.length === 12) throw new Error("stop at 12");
      }),
    ).rejects.toThrow("stop at 12");
    expect(seen).toHaveLength(12);
    // Page 1 consumed, page 2 in progress, page 3 fetched and blocked on the unbuffered send.
    expect(tp.calls.length).toBe(3);
  });
});

describe("TestListPager_eachListPageBuffered (P4)", () => {
  const cases = [
    { name: "no buffer, one total page", totalPages: 1, pagesProcessed: 1, wantPageLists: 1, pageBufferSize: 0 },
    { name: "no buffer, 1/5 pages processed", totalPages: 5, pagesProcessed: 1, wantPageLists: 2, pageBufferSize: 0 },
    { name: "no buffer, 2/5 pages processed", totalPages: 5, pagesProcessed: 2, wantPageLists: 3, pageBufferSize: 0 },
    { name: "no buffer, 5/5 pages processed", totalPages: 5, pagesProcessed: 5, wantPageLists: 5, pageBufferSize: 0 },
    {
      name: "size 1 buffer, 1/5 pages processed",
      totalPages: 5,
      pagesProcessed: 1,
      wantPageLists: 3,
      pageBufferSize: 1,
    },
    {
      name: "size 1 buffer, 5/5 pages processed",
      totalPages: 5,
      pagesProcessed: 5,
      wantPageLists: 5,
      pageBufferSize: 1,
    },
    {
      name: "size 10 buffer, 1/5 page processed",
      totalPages: 5,
      pagesProcessed: 1,
      wantPageLists: 5,
      pageBufferSize: 10,
    },
  ];
  const pageSize = 10;
  const processorErr = new Error("processor error");
  for (const tc of cases) {
    it(tc.name, async () => {
      const tp = new TestPager(tc.totalPages * pageSize, pageSize);
      let pageLists = 0;
      let reached!: () => void;
      const wantedPageListsDone = new Promise<void>((resolve) => {
        reached = resolve;
      });
      const p = new ListPager<KubeObject>(async (o) => {
        pageLists++;
        if (pageLists === tc.wantPageLists) reached();
        return tp.pagedList(o);
      });
      p.pageSize = pageSize;
      p.pageBufferSize = tc.pageBufferSize;
      let pagesProcessed = 0;
      let err: unknown;
      try {
        await p.eachListChunkBuffered({}, async () => {
          pagesProcessed++;
          if (pagesProcessed === tc.pagesProcessed) {
            // Wait for the background producer to catch up, then stop.
            await wantedPageListsDone;
            throw processorErr;
          }
        });
      } catch (e) {
        err = e;
      }
      expect(err).toBe(processorErr);
      // Let any producer continuation run: it must not fetch more once the consumer stopped.
      for (let i = 0; i < 5; i++) await Promise.resolve();
      expect(pageLists).toBe(tc.wantPageLists);
      expect(pagesProcessed).toBe(tc.pagesProcessed);
    });
  }

  fcTest.prop([fc.integer({ min: 1, max: 8 }), fc.integer({ min: 0, max: 4 }), fc.integer({ min: 1, max: 8 })], {
    numRuns: 60,
  })("P4 property: the producer is never more than bufferSize + 1 pages ahead", async (total, buffer, stopAt) => {
    const tp = new TestPager(total * 5, 5);
    let lists = 0;
    let maxAhead = 0;
    let processed = 0;
    const p = new ListPager<KubeObject>(async (o) => {
      lists++;
      maxAhead = Math.max(maxAhead, lists - processed);
      return tp.pagedList(o);
    });
    p.pageSize = 5;
    p.pageBufferSize = buffer;
    const stop = new Error("stop");
    const run = p.eachListChunkBuffered({}, async () => {
      processed++;
      for (let i = 0; i < 3; i++) await Promise.resolve();
      if (processed === stopAt) throw stop;
    });
    if (stopAt <= total) await expect(run).rejects.toBe(stop);
    else await run;
    // Beyond the page being processed: `buffer` buffered pages plus one fetched and waiting to be sent.
    expect(maxAhead).toBeLessThanOrEqual(buffer + 1);
    expect(processed).toBe(Math.min(stopAt, total));
  });
});
