import type { ListOptions } from "@informer-ts/apimachinery";
import type { RequestContext, SimApiServer } from "@informer-ts/sim-apiserver";
import { Client, elapsedMs, fmtInt, mib, startSim, tick } from "./apiserver-harness.js";
import type { ApiserverSizes } from "./apiserver-sizes.js";
import type { BenchRow } from "./report.js";
import { smallConfigMap } from "./util.js";

// 3. LIST of many objects: from the watch cache (RV=0, consistent, and exact RVs through ListFromCacheSnapshot while
// the cache's history covers them) vs from storage (the same exact RVs once a cache re-initialization emptied it).

interface ListCase {
  readonly label: string;
  readonly opts: ListOptions;
  readonly query: string;
  readonly paginate: boolean;
}

interface ListTiming {
  readonly best: number;
  readonly servedFrom: string;
  readonly items: number;
  readonly pages: number;
  readonly bytes: number;
  readonly error?: string;
}

/** The engine call (items are the stored objects: nothing is encoded), best of REPS after a warm-up. */
async function listInProcess(sizes: ApiserverSizes, engine: SimApiServer, c: ListCase): Promise<ListTiming> {
  let best = Number.POSITIVE_INFINITY;
  let servedFrom = "";
  let items = 0;
  let pages = 0;
  let bytes = 0;
  for (let r = 0; r <= sizes.reps; r++) {
    const ctx: RequestContext = { userAgent: "bench" };
    const seen = new Set<string>();
    const start = process.hrtime.bigint();
    let list = await engine.list("configmaps", "", c.opts, ctx);
    seen.add(ctx.servedFrom ?? "?");
    let got = list.items.length;
    let p = 1;
    while (c.paginate && list.metadata.continue !== undefined && list.metadata.continue !== "") {
      list = await engine.list("configmaps", "", { limit: sizes.pageSize, continue: list.metadata.continue }, ctx);
      seen.add(ctx.servedFrom ?? "?");
      got += list.items.length;
      p++;
    }
    const ms = elapsedMs(start);
    if (r > 0) best = Math.min(best, ms);
    servedFrom = [...seen].join("+");
    items = got;
    pages = p;
    if (r === 0 && !c.paginate) bytes = Buffer.byteLength(JSON.stringify(list));
    await tick();
  }
  return { best, servedFrom, items, pages, bytes };
}

/** GETs from the child process (following continue tokens when paginating), time to last byte, best of REPS. */
async function listOverHttp(
  sizes: ApiserverSizes,
  engine: SimApiServer,
  client: Client,
  baseUrl: string,
  c: ListCase,
): Promise<ListTiming> {
  let best = Number.POSITIVE_INFINITY;
  let bytes = 0;
  let pages = 0;
  let error: string | undefined;
  const url = `${baseUrl}/api/v1/configmaps${c.query === "" ? "" : `?${c.query}`}`;
  const rowKey = (row: { userAgent: string; code: number; servedFrom: string }) =>
    `${row.userAgent}|${row.code}|${row.servedFrom}`;
  const listRows = () => engine.accounting.rows().filter((row) => row.verb === "list");
  const before = new Map(listRows().map((row) => [rowKey(row), row.count] as const));
  for (let r = 0; r <= sizes.reps && error === undefined; r++) {
    const res = await client.list(url, c.paginate ? sizes.pageSize : 0);
    if (res.error !== undefined) error = res.error;
    else if (r > 0) best = Math.min(best, res.ms ?? Number.POSITIVE_INFINITY);
    bytes = res.bytes ?? 0;
    pages = res.pages ?? 0;
  }
  // Where the server says it served them from (its request accounting, by served_from).
  const servedFrom = listRows()
    .filter((row) => row.count > (before.get(rowKey(row)) ?? 0))
    .map((row) => row.servedFrom)
    .join("+");
  return { best, servedFrom: servedFrom || "?", items: 0, pages, bytes, ...(error !== undefined && { error }) };
}

export async function listBench(sizes: ApiserverSizes): Promise<BenchRow[]> {
  const rows: BenchRow[] = [];
  const n = sizes.listObjects;
  const sim = await startSim();
  const { engine } = sim;
  const namespaces = 100;
  // The objects spread over 100 namespaces: create them first (the simulator refuses objects in a missing namespace).
  for (let i = 0; i < namespaces; i++) {
    await engine.create("namespaces", "", { apiVersion: "v1", kind: "Namespace", metadata: { name: `ns-${i}` } });
  }
  const tCreate = process.hrtime.bigint();
  for (let i = 0; i < n; i++) {
    const ns = `ns-${i % namespaces}`;
    await engine.create("configmaps", ns, smallConfigMap(`config-${i}`, ns, i));
  }
  const createMs = elapsedMs(tCreate);
  const rvN = engine.currentResourceVersion;
  // One more write, so the watch cache is past rvN: an exact read at rvN needs a snapshot of the past.
  await engine.update("configmaps", "ns-0", "config-0", smallConfigMap("config-0", "ns-0", -1));
  const page = sizes.pageSize;
  const exact: ListCase = {
    label: `RV=${rvN} Exact`,
    opts: { resourceVersion: String(rvN), resourceVersionMatch: "Exact" },
    query: `resourceVersion=${rvN}&resourceVersionMatch=Exact`,
    paginate: false,
  };
  const legacy: ListCase = {
    label: `RV=${rvN} legacy exact, limit=${page}, every page`,
    opts: { resourceVersion: String(rvN), limit: page },
    query: `resourceVersion=${rvN}&limit=${page}`,
    paginate: true,
  };
  const phases: Array<{ readonly when: string; readonly cases: readonly ListCase[]; readonly before?: () => void }> = [
    {
      when: "",
      cases: [
        { label: "RV=0", opts: { resourceVersion: "0" }, query: "resourceVersion=0", paginate: false },
        { label: 'RV="" (consistent)', opts: {}, query: "", paginate: false },
        exact,
        legacy,
      ],
    },
    {
      // A re-initialized cache relists: its history starts after rvN, so exact reads at rvN go to storage.
      when: " after a cache re-initialization",
      cases: [exact, legacy],
      before: () => engine.faults.reinitializeCache("configmaps"),
    },
  ];
  const client = new Client();
  await client.ready();
  let baseInProc = Number.NaN;
  let baseHttp = Number.NaN;
  const describe = (t: ListTiming, http: boolean) =>
    t.error ??
    (http
      ? `${mib(t.bytes)} received${t.pages > 1 ? ` in ${t.pages} pages` : ""}, time to last byte`
      : `${fmtInt(t.items)} items${t.pages > 1 ? ` in ${t.pages} pages` : ""}${t.bytes > 0 ? `, ${mib(t.bytes)} as JSON (not timed)` : ""}`);
  for (const phase of phases) {
    phase.before?.();
    for (const c of phase.cases) {
      const t = await listInProcess(sizes, engine, c);
      if (c.label === "RV=0") baseInProc = t.best;
      rows.push({
        case: `list ${fmtInt(n)} in-process, ${c.label}${phase.when} → ${t.servedFrom}`,
        value: t.best,
        unit: "ms",
        ...(c.label !== "RV=0" && { baseline: baseInProc, ratioLabel: "this/RV=0", ratio: t.best / baseInProc }),
        note: describe(t, false),
      });
    }
    for (const c of phase.cases) {
      const t = await listOverHttp(sizes, engine, client, sim.url, c);
      if (c.label === "RV=0") baseHttp = t.best;
      const ok = t.error === undefined;
      rows.push({
        case: `list ${fmtInt(n)} over HTTP, ${c.label}${phase.when} → ${t.servedFrom}`,
        value: ok ? t.best : Number.NaN,
        unit: "ms",
        ...(c.label !== "RV=0" && ok && { baseline: baseHttp, ratioLabel: "this/RV=0", ratio: t.best / baseHttp }),
        note: describe(t, true),
      });
    }
  }
  client.exit();
  await sim.stop();
  rows.push({
    case: `create ${fmtInt(n)} ConfigMaps in-process (setup of the list cases)`,
    value: n / (createMs / 1000),
    unit: "objects/s",
  });
  return rows;
}
