import {
  type FieldError,
  type KubeList,
  type KubeObject,
  type ListOptions,
  newInvalid,
  newNotFound,
  StatusError,
} from "@informer-ts/apimachinery";
import { answeredBy, type Cacher } from "../cacher/index.js";
import { type DecodedListOptions, setListOptionsDefaults, validateListOptions } from "../list-options.js";
import { type ScaleSubresource, scaleOf } from "../registry/index.js";
import type { Served } from "../request-context.js";
import type { SimResource } from "../resources.js";
import { type ParsedSelectors, parseSelectors, type Selection, selectionFor } from "../selection.js";

function toDecoded(opts: ListOptions, watch: boolean): DecodedListOptions {
  return {
    watch,
    labelSelector: opts.labelSelector ?? "",
    fieldSelector: opts.fieldSelector ?? "",
    resourceVersion: opts.resourceVersion ?? "",
    resourceVersionMatch: opts.resourceVersionMatch ?? "",
    limit: opts.limit ?? 0,
    continue: opts.continue ?? "",
    timeoutSeconds: opts.timeoutSeconds,
    allowWatchBookmarks: opts.allowWatchBookmarks === true,
    sendInitialEvents: opts.sendInitialEvents,
  };
}

/** The gates list-option decoding depends on (see `KubeVersionGates`). */
export interface ListOptionGates {
  /** The WatchList feature gate: `sendInitialEvents` accepted, legacy RV ""/"0" watches defaulted to watch-lists. */
  readonly watchList: boolean;
  /** Whether the server knows the `sendInitialEvents` option at all (1.27+); unknown, it is ignored. */
  readonly sendInitialEventsOption: boolean;
}

/** `SetListOptionsDefaults` + `ValidateListOptions` on the WatchList gate; throws the 422. */
function validated(opts: ListOptions, watch: boolean, gates: ListOptionGates): ListOptions {
  if (!gates.sendInitialEventsOption && opts.sendInitialEvents !== undefined) {
    const { sendInitialEvents: _unknown, ...known } = opts;
    opts = known;
  }
  const d = toDecoded(opts, watch);
  setListOptionsDefaults(d, gates.watchList);
  const errs: FieldError[] = validateListOptions(d, gates.watchList);
  if (errs.length > 0) throw newInvalid({ group: "meta.k8s.io", kind: "ListOptions" }, "", errs);
  const out: ListOptions = { ...opts };
  if (d.sendInitialEvents !== undefined) out.sendInitialEvents = d.sendInitialEvents;
  if (d.resourceVersionMatch !== "") out.resourceVersionMatch = d.resourceVersionMatch as "NotOlderThan" | "Exact";
  return out;
}

/**
 * The list handler's `listOpts()` after decoding, in kube-apiserver's order: selector syntax (400), defaulting,
 * validation (the 422 matrix), field-label conversion (400 for a field the resource does not have). `watch` is the
 * request's `watch` parameter (false for a legacy `/watch/` path). Returns the defaulted options and the selection;
 * the default watch timeout is left to the watch handler.
 */
export function listOptionsFor(
  r: SimResource,
  opts: ListOptions,
  watch: boolean,
  gates: ListOptionGates,
): { readonly v: ListOptions; readonly sel: Selection } {
  const parsed: ParsedSelectors = parseSelectors(opts.labelSelector, opts.fieldSelector);
  const v = validated(opts, watch, gates);
  return { v, sel: selectionFor(r, parsed) };
}

/**
 * LIST (kube-apiserver's `ListResource` handler): `opts` are the decoded query, defaulted and validated here, then
 * served by the resource's watch cache (which delegates to storage per the routing rules).
 */
export async function serveList(
  cacher: Cacher,
  namespace: string,
  opts: ListOptions,
  gates: ListOptionGates,
): Promise<Served<KubeList>> {
  const { v, sel } = listOptionsFor(cacher.resource, opts, false, gates);
  const res = await cacher.list(namespace, v, sel);
  return { object: res.list, servedFrom: res.servedFrom, scanned: res.scanned };
}

/**
 * GET one object (`GetResource`): RV unset from storage, "0" from the cache, N from the cache once fresh; 404 naming
 * the object when absent. `subresource: "scale"` answers the object's Scale.
 */
export async function serveGet(
  cacher: Cacher,
  namespace: string,
  name: string,
  resourceVersion: string,
  subresource: string | undefined,
): Promise<Served<KubeObject>> {
  const r = cacher.resource;
  const res = await cacher.get(namespace, name, resourceVersion);
  try {
    if (res.object === undefined) throw newNotFound({ group: r.group, resource: r.resource }, name);
    const object = subresource === "scale" ? scaleOf(res.object, scalePathsOf(r)) : res.object;
    return { object, servedFrom: res.servedFrom };
  } catch (err) {
    throw answeredBy(err, res.servedFrom); // the read happened: its 404 is accounted where it was answered
  }
}

/** The `/scale` paths of a resource; 404 (the route does not exist) when it has no scale subresource. */
export function scalePathsOf(r: SimResource): ScaleSubresource {
  const paths = r.scale;
  if (paths === undefined) {
    throw new StatusError({
      kind: "Status",
      apiVersion: "v1",
      metadata: {},
      status: "Failure",
      message: "the server could not find the requested resource",
      reason: "NotFound",
      details: {},
      code: 404,
    });
  }
  return paths;
}
