import type { KubeObject, ListMeta, ObjectMeta } from "@informer-ts/apimachinery";
import { deepFreeze, isDeepFrozen } from "../engine/object-util.js";
import type { PrinterColumn } from "../engine/resources.js";
import { customResourceColumnsPrinter } from "./custom-resource-columns.js";
import { KIND_TABLE_PRINTERS } from "./table-printers.js";

/** `metav1.TableColumnDefinition`. */
export interface TableColumnDefinition {
  name: string;
  type: string;
  format: string;
  description: string;
  priority: number;
}

/** `metav1.TableRow`. `object` is a PartialObjectMetadata, the full object, or null (`includeObject`). */
export interface TableRow {
  cells: unknown[];
  object: KubeObject | null;
}

/** `metav1.Table` (`meta.k8s.io/v1` or `v1beta1`). `columnDefinitions` is null when headers are omitted. */
export interface Table {
  kind: "Table";
  apiVersion: string;
  metadata: ListMeta;
  columnDefinitions: TableColumnDefinition[] | null;
  rows: TableRow[];
}

/** `metav1.IncludeObjectPolicy`: what each row's `object` holds (`includeObject` query parameter). */
export type IncludeObjectPolicy = "None" | "Metadata" | "Object";

/** How to render a Table (`metav1.TableOptions` plus the negotiated group version). */
export interface TableOptions {
  /** `meta.k8s.io/v1` (default) or `meta.k8s.io/v1beta1`, as negotiated from the Accept header. */
  readonly apiVersion?: string;
  /** Omit `columnDefinitions` (every watch event after the first). */
  readonly noHeaders?: boolean;
  readonly includeObject?: IncludeObjectPolicy;
  /** Current time in ms since the epoch, for `Age` cells (kind-specific printers). */
  readonly now: number;
}

/** A printer for one kind: its columns and the cells of one object. */
export interface TablePrinter {
  readonly columns: readonly TableColumnDefinition[];
  cells(obj: KubeObject, now: number): unknown[];
}

const col = (name: string, type: string, format: string, description: string): TableColumnDefinition => ({
  name,
  type,
  format,
  description,
  priority: 0,
});

/**
 * The generic printer (`rest.NewDefaultTableConvertor`): `Name` and `Created At` (RFC 3339, UTC), for kinds without
 * a dedicated printer.
 *
 * Differences from kube-apiserver: the column descriptions are short texts of our own, not ObjectMeta's swagger docs.
 */
export const defaultTablePrinter: TablePrinter = {
  columns: [
    col("Name", "string", "name", "Name of the object, unique within its namespace."),
    col("Created At", "date", "", "When the object was created (RFC 3339, UTC)."),
  ],
  cells(obj) {
    const meta = obj.metadata ?? {};
    return [meta.name ?? "", rfc3339(meta.creationTimestamp)];
  },
};

/** The ConfigMap printer of `pkg/printers/internalversion`: `NAME DATA AGE`. */
export const configMapTablePrinter: TablePrinter = {
  columns: [
    col("Name", "string", "name", "Name of the object, unique within its namespace."),
    col("Data", "integer", "", "Number of entries in data and binaryData."),
    col("Age", "string", "", "Time since the object was created."),
  ],
  cells(obj, now) {
    const count = (v: unknown) => (typeof v === "object" && v !== null ? Object.keys(v).length : 0);
    return [obj.metadata?.name ?? "", count(obj.data) + count(obj.binaryData), ageOf(obj.metadata, now)];
  },
};

/**
 * The printer of a custom resource whose definition declares no `additionalPrinterColumns` (apiextensions'
 * `tableconvertor` over the default `Age` column): `NAME AGE`, the age as a human duration (a `date` column).
 */
export const customResourceTablePrinter: TablePrinter = {
  columns: [
    col("Name", "string", "name", "Name of the object, unique within its namespace."),
    col("Age", "date", "", "When the object was created."),
  ],
  cells(obj, now) {
    return [obj.metadata?.name ?? "", ageOf(obj.metadata, now)];
  },
};

/** kube's Namespace printer: `NAME STATUS AGE` (STATUS is `status.phase`, Active or Terminating). */
export const namespaceTablePrinter: TablePrinter = {
  columns: [
    col("Name", "string", "name", "Name of the object, unique in the cluster."),
    col("Status", "string", "", "The phase of the namespace (Active or Terminating)."),
    col("Age", "string", "", "Time since the object was created."),
  ],
  cells(obj, now) {
    const phase = (obj.status as { phase?: unknown } | undefined)?.phase;
    return [obj.metadata?.name ?? "", typeof phase === "string" ? phase : "", ageOf(obj.metadata, now)];
  },
};

/**
 * The printer for a resource: dedicated ones for core `configmaps` and `namespaces` and the kinds of
 * `table-printers.ts` (pods, services, nodes, events, deployments, replicasets, statefulsets, daemonsets, jobs, cronjobs,
 * horizontalpodautoscalers, poddisruptionbudgets, ingresses, priorityclasses, resourcequotas, persistentvolumeclaims,
 * persistentvolumes, storageclasses, serviceaccounts, secrets),
 * {@link customResourceTablePrinter} for custom resources (`customResourceColumnsPrinter` of a version's
 * `additionalPrinterColumns` when it declares some), else {@link defaultTablePrinter}.
 */
export function tablePrinterFor(
  group: string,
  resource: string,
  custom = false,
  columns?: readonly PrinterColumn[],
): TablePrinter {
  if (custom) return columns === undefined ? customResourceTablePrinter : customResourceColumnsPrinter(columns);
  if (group === "" && resource === "configmaps") return configMapTablePrinter;
  if (group === "" && resource === "namespaces") return namespaceTablePrinter;
  return KIND_TABLE_PRINTERS.get(`${group}/${resource}`) ?? defaultTablePrinter;
}

function rfc3339(ts: string | undefined): string | null {
  if (ts === undefined || ts === "") return null;
  const t = Date.parse(ts);
  if (Number.isNaN(t)) return ts;
  return new Date(t).toISOString().replace(/\.\d{3}Z$/, "Z");
}

function ageOf(meta: ObjectMeta | undefined, now: number): string {
  const ts = meta?.creationTimestamp;
  if (ts === undefined || ts === "") return "<unknown>";
  const t = Date.parse(ts);
  if (Number.isNaN(t)) return "<unknown>";
  return humanDuration(now - t);
}

/**
 * `duration.HumanDuration` from apimachinery: a short, rounded-down age such as `45s`, `5m30s`, `3h`, `2d4h`, `3y`.
 * Negative durations of up to 2 s print as `0s`; earlier ones as `<invalid>`.
 */
export function humanDuration(ms: number): string {
  const seconds = Math.trunc(ms / 1000);
  if (seconds < -1) return "<invalid>";
  if (seconds < 0) return "0s";
  if (seconds < 120) return `${seconds}s`;
  const minutes = Math.trunc(seconds / 60);
  if (minutes < 10) {
    const s = seconds % 60;
    return s === 0 ? `${minutes}m` : `${minutes}m${s}s`;
  }
  if (minutes < 180) return `${minutes}m`;
  const hours = Math.trunc(minutes / 60);
  if (hours < 8) {
    const m = minutes % 60;
    return m === 0 ? `${hours}h` : `${hours}h${m}m`;
  }
  if (hours < 48) return `${hours}h`;
  if (hours < 24 * 8) {
    const h = hours % 24;
    return h === 0 ? `${Math.trunc(hours / 24)}d` : `${Math.trunc(hours / 24)}d${h}h`;
  }
  if (hours < 24 * 365 * 2) return `${Math.trunc(hours / 24)}d`;
  if (hours < 24 * 365 * 8) {
    const days = Math.trunc(hours / 24) % 365;
    const years = Math.trunc(hours / 24 / 365);
    return days === 0 ? `${years}y` : `${years}y${days}d`;
  }
  return `${Math.trunc(hours / 24 / 365)}y`;
}

/** `meta.AsPartialObjectMetadata` with the negotiated group version. */
export function asPartialObjectMetadata(obj: KubeObject, apiVersion = "meta.k8s.io/v1"): KubeObject {
  if (!isDeepFrozen(obj as unknown)) return { kind: "PartialObjectMetadata", apiVersion, metadata: obj.metadata ?? {} };
  // A stored object never changes: its metadata view (and so, through `encoding-cache.ts`, that view's JSON) is made
  // once per object version and apiVersion, and every metadata LIST, GET or watch event after the first reuses it.
  let views = partialViews.get(obj);
  if (views === undefined) {
    views = new Map();
    partialViews.set(obj, views);
  }
  let view = views.get(apiVersion);
  if (view === undefined) {
    view = deepFreeze<KubeObject>({ kind: "PartialObjectMetadata", apiVersion, metadata: obj.metadata ?? {} });
    views.set(apiVersion, view);
  }
  return view;
}

/** The {@link asPartialObjectMetadata} views of stored (deep-frozen) objects, by apiVersion; weak on the object. */
const partialViews = new WeakMap<object, Map<string, KubeObject>>();

function rowObject(obj: KubeObject, opts: TableOptions, apiVersion: string): KubeObject | null {
  const policy = opts.includeObject ?? "Metadata";
  const initEnd = obj.metadata?.annotations?.["k8s.io/initial-events-end"] === "true";
  if (policy === "Object" && !initEnd) return obj;
  if (policy === "None" && !initEnd) return null;
  return asPartialObjectMetadata(obj, apiVersion);
}

/**
 * `ConvertToTable` + `asTable` for a list: one row per item, the list's `resourceVersion`, `continue` and
 * `remainingItemCount` copied into the Table's metadata.
 */
export function listToTable(
  list: { metadata?: ListMeta; items: readonly KubeObject[] },
  printer: TablePrinter,
  opts: TableOptions,
): Table {
  const apiVersion = opts.apiVersion ?? "meta.k8s.io/v1";
  const metadata: ListMeta = {};
  if (list.metadata?.resourceVersion !== undefined) metadata.resourceVersion = list.metadata.resourceVersion;
  if (list.metadata?.continue !== undefined && list.metadata.continue !== "")
    metadata.continue = list.metadata.continue;
  if (list.metadata?.remainingItemCount !== undefined) metadata.remainingItemCount = list.metadata.remainingItemCount;
  return {
    kind: "Table",
    apiVersion,
    metadata,
    columnDefinitions: opts.noHeaders === true ? null : [...printer.columns],
    rows: list.items.map((o) => ({ cells: printer.cells(o, opts.now), object: rowObject(o, opts, apiVersion) })),
  };
}

/** `ConvertToTable` + `asTable` for one object (a get, or one watch event): a one-row Table with the object's RV. */
export function objectToTable(obj: KubeObject, printer: TablePrinter, opts: TableOptions): Table {
  const apiVersion = opts.apiVersion ?? "meta.k8s.io/v1";
  const metadata: ListMeta = {};
  if (obj.metadata?.resourceVersion !== undefined) metadata.resourceVersion = obj.metadata.resourceVersion;
  return {
    kind: "Table",
    apiVersion,
    metadata,
    columnDefinitions: opts.noHeaders === true ? null : [...printer.columns],
    rows: [{ cells: printer.cells(obj, opts.now), object: rowObject(obj, opts, apiVersion) }],
  };
}
