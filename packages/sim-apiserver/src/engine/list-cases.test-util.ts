// Request-validation cases of reference/apiserver.md §2 shared by the in-process list tests (engine/list.test.ts) and
// the HTTP conformance tests (test/conformance/list-http.test.ts). Expected bodies are in wire form: what
// kube-apiserver writes (empty `details.name`/`details.group` omitted), so in-process errors are compared after
// `orderedStatus`.
import { failureStatus, type ListOptions, type Status } from "@informer-ts/apimachinery";
import { encodeContinue } from "./storage/continue-token.js";

/** A syntactically valid continue token (namespace "ns", rv 5). */
export const SOME_CONTINUE = encodeContinue("ns/a", "ns/", 5);

/** 504 `Too large resource version` (wire form); the watch cache adds `retryAfterSeconds: 1`, storage does not. */
export function tooLargeStatus(rv: number, current: number, retryAfterSeconds?: number): Status {
  return failureStatus(504, "Timeout", `Timeout: Too large resource version: ${rv}, current: ${current}`, {
    causes: [{ reason: "ResourceVersionTooLarge", message: "Too large resource version" }],
    ...(retryAfterSeconds !== undefined && { retryAfterSeconds }),
  });
}

/** 410 for a list below the compaction point (no details). */
export const LIST_TOO_OLD: Status = failureStatus(
  410,
  "Expired",
  "The resourceVersion for the provided list is too old.",
);

/** The 410 message of a continuation whose RV is gone; the Status carries the rv -1 token in `metadata.continue`. */
export const INCONSISTENT_CONTINUE_MESSAGE =
  "The provided continue parameter is too old to display a consistent list result. You can start a new list " +
  "without the continue parameter, or use the continue token in this response to retrieve the remainder of the " +
  "results. Continuing with the provided token results in an inconsistent list - objects that were created, " +
  "modified, or deleted between the time the first chunk was returned and now may show up in the list.";

/** One rejected list or watch request and the Status kube-apiserver answers with. */
export interface ValidationCase {
  readonly what: string;
  readonly watch: boolean;
  /** The server's WatchList feature gate (default on). */
  readonly watchList?: boolean;
  readonly options: ListOptions;
  readonly status: Status;
}

type Cause = readonly [reason: string, field: string, message: string];

/** 422 `ListOptions.meta.k8s.io "" is invalid: …` with one cause per field error (several print as `[a, b]`). */
function invalid(message: string, ...causes: Cause[]): Status {
  return {
    kind: "Status",
    apiVersion: "v1",
    metadata: {},
    status: "Failure",
    message: `ListOptions.meta.k8s.io "" is invalid: ${message}`,
    reason: "Invalid",
    details: {
      group: "meta.k8s.io",
      kind: "ListOptions",
      causes: causes.map(([reason, field, m]) => ({ reason, message: m, field })),
    },
    code: 422,
  };
}

function badRequest(message: string): Status {
  return {
    kind: "Status",
    apiVersion: "v1",
    metadata: {},
    status: "Failure",
    message,
    reason: "BadRequest",
    code: 400,
  };
}

const RVM = "resourceVersionMatch";
const F = "FieldValueForbidden";
const forbidUnlessRV = "Forbidden: resourceVersionMatch is forbidden unless resourceVersion is provided";
const forbidContinue = "Forbidden: resourceVersionMatch is forbidden when continue is provided";
const requiresNOT = "Forbidden: sendInitialEvents requires setting resourceVersionMatch to NotOlderThan";

/** §2: the 422 matrix (list and watch) and the 400s of storage-level validation and selectors. */
export const VALIDATION_CASES: readonly ValidationCase[] = [
  {
    what: "list: resourceVersionMatch without resourceVersion",
    watch: false,
    options: { resourceVersionMatch: "NotOlderThan" },
    status: invalid(`${RVM}: ${forbidUnlessRV}`, [F, RVM, forbidUnlessRV]),
  },
  {
    what: "list: resourceVersionMatch with continue",
    watch: false,
    options: { resourceVersionMatch: "NotOlderThan", resourceVersion: "0", continue: SOME_CONTINUE },
    status: invalid(`${RVM}: ${forbidContinue}`, [F, RVM, forbidContinue]),
  },
  {
    what: "list: resourceVersionMatch neither Exact nor NotOlderThan",
    watch: false,
    options: { resourceVersionMatch: "Latest" as "Exact", resourceVersion: "5" },
    status: invalid(`${RVM}: Unsupported value: "Latest": supported values: "Exact", "NotOlderThan", ""`, [
      "FieldValueNotSupported",
      RVM,
      'Unsupported value: "Latest": supported values: "Exact", "NotOlderThan", ""',
    ]),
  },
  {
    what: "list: resourceVersionMatch=Exact with resourceVersion=0",
    watch: false,
    options: { resourceVersionMatch: "Exact", resourceVersion: "0" },
    status: invalid(`${RVM}: Forbidden: resourceVersionMatch "exact" is forbidden for resourceVersion "0"`, [
      F,
      RVM,
      'Forbidden: resourceVersionMatch "exact" is forbidden for resourceVersion "0"',
    ]),
  },
  {
    what: "list: sendInitialEvents",
    watch: false,
    options: { sendInitialEvents: true },
    status: invalid("sendInitialEvents: Forbidden: sendInitialEvents is forbidden for list", [
      F,
      "sendInitialEvents",
      "Forbidden: sendInitialEvents is forbidden for list",
    ]),
  },
  {
    what: "list: two errors at once print as a list",
    watch: false,
    options: { resourceVersionMatch: "Exact", continue: SOME_CONTINUE },
    status: invalid(
      `[${RVM}: ${forbidUnlessRV}, ${RVM}: ${forbidContinue}]`,
      [F, RVM, forbidUnlessRV],
      [F, RVM, forbidContinue],
    ),
  },
  {
    what: "watch: sendInitialEvents without resourceVersionMatch=NotOlderThan",
    watch: true,
    options: { sendInitialEvents: true, resourceVersion: "5" },
    status: invalid(`${RVM}: ${requiresNOT}`, [F, RVM, requiresNOT]),
  },
  {
    what: "watch: sendInitialEvents while the WatchList gate is off",
    watch: true,
    watchList: false,
    options: { sendInitialEvents: true, resourceVersionMatch: "NotOlderThan" },
    status: invalid(
      "sendInitialEvents: Forbidden: sendInitialEvents is forbidden for watch unless the WatchList feature gate is enabled",
      [
        F,
        "sendInitialEvents",
        "Forbidden: sendInitialEvents is forbidden for watch unless the WatchList feature gate is enabled",
      ],
    ),
  },
  {
    what: "watch: resourceVersionMatch without sendInitialEvents",
    watch: true,
    options: { resourceVersionMatch: "NotOlderThan", resourceVersion: "5" },
    status: invalid(
      `${RVM}: Forbidden: resourceVersionMatch is forbidden for watch unless sendInitialEvents is provided`,
      [F, RVM, "Forbidden: resourceVersionMatch is forbidden for watch unless sendInitialEvents is provided"],
    ),
  },
  {
    what: "watch: resourceVersionMatch other than NotOlderThan",
    watch: true,
    options: { sendInitialEvents: true, resourceVersionMatch: "Exact", resourceVersion: "5" },
    status: invalid(
      `[${RVM}: ${requiresNOT}, ${RVM}: Unsupported value: "Exact": supported values: "NotOlderThan"]`,
      [F, RVM, requiresNOT],
      ["FieldValueNotSupported", RVM, 'Unsupported value: "Exact": supported values: "NotOlderThan"'],
    ),
  },
  {
    what: "list: continue with resourceVersion other than 0",
    watch: false,
    options: { continue: SOME_CONTINUE, resourceVersion: "5" },
    status: badRequest("specifying resource version is not allowed when using continue"),
  },
  {
    what: "list: an undecodable continue token (checked before the resourceVersion)",
    watch: false,
    options: { continue: "not*base64", resourceVersion: "5" },
    status: badRequest("invalid continue token: continue key is not valid: illegal base64 data at input byte 3"),
  },
  {
    what: "list: a non-numeric resourceVersion",
    watch: false,
    options: { resourceVersion: "abc" },
    status: badRequest(
      'invalid resource version: resourceVersion: Invalid value: "abc": strconv.ParseUint: parsing "abc": invalid syntax',
    ),
  },
  {
    what: "list: an unsupported field label",
    watch: false,
    options: { fieldSelector: "spec.nodeName=n1" },
    status: badRequest('"spec.nodeName" is not a known field selector: only "metadata.name", "metadata.namespace"'),
  },
  {
    what: "list: an unsupported field label is checked after validation (422 wins)",
    watch: false,
    options: { fieldSelector: "spec.foo=x", resourceVersionMatch: "Exact" },
    status: invalid(`${RVM}: ${forbidUnlessRV}`, [F, RVM, forbidUnlessRV]),
  },
  {
    what: "list: a malformed field selector is a decode error, before validation (400 wins)",
    watch: false,
    options: { fieldSelector: "metadata.name", resourceVersionMatch: "Exact" },
    status: badRequest("invalid selector: 'metadata.name'; can't understand 'metadata.name'"),
  },
  {
    what: "watch: an unsupported field label is checked after validation (422 wins)",
    watch: true,
    options: { fieldSelector: "spec.foo=x", resourceVersionMatch: "NotOlderThan", resourceVersion: "5" },
    status: invalid(
      `${RVM}: Forbidden: resourceVersionMatch is forbidden for watch unless sendInitialEvents is provided`,
      [F, RVM, "Forbidden: resourceVersionMatch is forbidden for watch unless sendInitialEvents is provided"],
    ),
  },
  {
    what: "watch: a malformed label selector is a decode error, before validation (400 wins)",
    watch: true,
    options: { labelSelector: "x nott in (y)", resourceVersionMatch: "NotOlderThan", resourceVersion: "5" },
    status: badRequest("unable to parse requirement: found 'nott', expected: in, notin, =, ==, !=, gt, lt"),
  },
  {
    what: "list: a bad label selector",
    watch: false,
    options: { labelSelector: "x nott in (y)" },
    status: badRequest("unable to parse requirement: found 'nott', expected: in, notin, =, ==, !=, gt, lt"),
  },
];

/** The query string of `opts` as a client sends it. */
export function listQuery(opts: ListOptions, watch = false): string {
  const q = new URLSearchParams();
  if (watch) q.set("watch", "true");
  for (const [k, v] of Object.entries(opts)) if (v !== undefined) q.set(k, String(v));
  return q.toString();
}
