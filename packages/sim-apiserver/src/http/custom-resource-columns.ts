import type { KubeObject } from "@informer-ts/apimachinery";
import type { PrinterColumn } from "../engine/resources.js";
import { humanDuration, type TableColumnDefinition, type TablePrinter } from "./table.js";

// A custom resource version's `additionalPrinterColumns` as Table columns (apiextensions-apiserver
// `pkg/registry/customresource/tableconvertor/tableconvertor.go`): `Name`, then each column, its cell the first
// value its JSONPath finds, typed as `cellForJSONValue` types it.

/** One step of a column's JSONPath: a field, a list index, every item, or a filter on an item field's value. */
type Step =
  | { readonly field: string }
  | { readonly index: number }
  | { readonly all: true }
  | { readonly filter: readonly string[]; readonly equals: string | number | boolean };

/**
 * Parses the JSONPath of a printer column (`.status.replicas`, `.spec.items[0].name`, `.metadata.labels['app']`,
 * `.status.conditions[?(@.type=="Ready")].status`); undefined when it is not one of those forms.
 */
export function parseColumnPath(path: string): Step[] | undefined {
  const steps: Step[] = [];
  let rest = path.trim().replace(/^\{(.*)\}$/, "$1");
  while (rest !== "") {
    const next = nextStep(rest);
    if (next === undefined) return undefined;
    steps.push(next.step);
    rest = rest.slice(next.length);
  }
  return steps;
}

/** The forms a step takes, each with how its match becomes a {@link Step}. */
const STEP_FORMS: ReadonlyArray<readonly [RegExp, (m: RegExpExecArray) => Step]> = [
  [/^\.([A-Za-z0-9_-]+)/, (m) => ({ field: m[1]! })],
  [/^\[(\d+)\]/, (m) => ({ index: Number(m[1]) })],
  [/^\[\*\]/, () => ({ all: true })],
  [/^\['([^']*)'\]/, (m) => ({ field: m[1]! })],
  [
    /^\[\?\(@((?:\.[A-Za-z0-9_-]+)+)\s*==\s*(?:"([^"]*)"|'([^']*)'|(-?\d+(?:\.\d+)?)|(true|false))\)\]/,
    (m) => ({
      filter: m[1]!.slice(1).split("."),
      equals: m[2] ?? m[3] ?? (m[4] !== undefined ? Number(m[4]) : m[5] === "true"),
    }),
  ],
];

function nextStep(rest: string): { step: Step; length: number } | undefined {
  for (const [re, make] of STEP_FORMS) {
    const m = re.exec(rest);
    if (m !== null) return { step: make(m), length: m[0].length };
  }
  return undefined;
}

/** The values `steps` find in `root`, in document order. */
function find(root: unknown, steps: readonly Step[]): unknown[] {
  let at: unknown[] = [root];
  for (const step of steps) {
    const next: unknown[] = [];
    for (const v of at) {
      if ("field" in step) {
        if (typeof v === "object" && v !== null && !Array.isArray(v) && step.field in v) {
          next.push((v as Record<string, unknown>)[step.field]);
        }
      } else if (!Array.isArray(v)) {
      } else if ("index" in step) {
        if (step.index < v.length) next.push(v[step.index]);
      } else if ("all" in step) {
        next.push(...v);
      } else {
        for (const item of v) {
          let x: unknown = item;
          for (const f of step.filter)
            x = typeof x === "object" && x !== null ? (x as Record<string, unknown>)[f] : undefined;
          if (x === step.equals) next.push(item);
        }
      }
    }
    at = next;
  }
  return at;
}

/** `cellForJSONValue`: a value as a cell of the column's type; null when it is not of that type. */
function cellOf(type: string, value: unknown, now: number): unknown {
  if (value === null || value === undefined) return null;
  switch (type) {
    case "integer":
      return typeof value === "number" && Number.isInteger(value) ? value : null;
    case "number":
      return typeof value === "number" ? value : null;
    case "boolean":
      return typeof value === "boolean" ? value : null;
    case "string":
      return typeof value === "string" ? value : JSON.stringify(value);
    case "date": {
      const t = typeof value === "string" ? Date.parse(value) : Number.NaN;
      return Number.isNaN(t) ? null : humanDuration(now - t);
    }
    default:
      return null;
  }
}

/** The Table printer of a custom resource version that declares `additionalPrinterColumns`. */
export function customResourceColumnsPrinter(columns: readonly PrinterColumn[]): TablePrinter {
  const paths = columns.map((c) => parseColumnPath(c.jsonPath));
  const defs: TableColumnDefinition[] = [
    {
      name: "Name",
      type: "string",
      format: "name",
      description: "Name must be unique within a namespace.",
      priority: 0,
    },
    ...columns.map((c) => ({
      name: c.name,
      type: c.type,
      format: c.format ?? "",
      description: c.description ?? "",
      priority: c.priority ?? 0,
    })),
  ];
  return {
    columns: defs,
    cells(obj: KubeObject, now: number) {
      return [
        obj.metadata?.name ?? "",
        ...columns.map((c, i) => {
          const steps = paths[i];
          const found = steps === undefined ? [] : find(obj, steps);
          return found.length === 0 ? null : cellOf(c.type, found[0], now);
        }),
      ];
    },
  };
}
