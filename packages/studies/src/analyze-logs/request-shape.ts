// The "shape" of a read request — what decides whether kube-apiserver answers it from the watch cache or from etcd:
// verb, resourceVersion (unset, "0", a number), limit, continue, resourceVersionMatch, selectors, watch-list.

/** The list options of a read, as they appear in its query. */
export interface ReadOptions {
  readonly resourceVersion?: string;
  readonly resourceVersionMatch?: string;
  readonly limit?: number;
  readonly continue?: string;
  readonly labelSelector?: string;
  readonly fieldSelector?: string;
  readonly sendInitialEvents?: boolean;
}

/**
 * A short, stable label of a request's routing-relevant shape, e.g. `list RV="0" limit`, `list RV="" limit
 * selector`, `list continue`, `list RV=N`, `get RV=""`, `watch RV=N`, `watch-list`. Writes and other verbs are
 * their verb alone. The same labels are used by `informer analyze-logs` and the `apiserver-load` study's routing
 * table.
 */
export function requestShape(verb: string, o: ReadOptions): string {
  const rv = o.resourceVersion ?? "";
  const rvLabel = rv === "" ? 'RV=""' : rv === "0" ? 'RV="0"' : "RV=N";
  const selector = (o.labelSelector ?? "") !== "" || (o.fieldSelector ?? "") !== "" ? " selector" : "";
  switch (verb) {
    case "list": {
      if ((o.continue ?? "") !== "") return `list continue${selector}`;
      const limit = (o.limit ?? 0) > 0 ? " limit" : "";
      const match = (o.resourceVersionMatch ?? "") !== "" ? ` ${o.resourceVersionMatch}` : "";
      return `list ${rvLabel}${match}${limit}${selector}`;
    }
    case "watch":
      return o.sendInitialEvents === true ? `watch-list${selector}` : `watch ${rvLabel}${selector}`;
    case "get":
      return `get ${rvLabel}`;
    default:
      return verb;
  }
}

/** {@link ReadOptions} from decoded query parameters (`resourceVersion`, `limit`, `continue`, …). */
export function readOptionsOfQuery(query: ReadonlyMap<string, string>): ReadOptions {
  const limit = Number(query.get("limit") ?? "0");
  return {
    resourceVersion: query.get("resourceVersion") ?? "",
    resourceVersionMatch: query.get("resourceVersionMatch") ?? "",
    limit: Number.isFinite(limit) ? limit : 0,
    continue: query.get("continue") ?? "",
    labelSelector: query.get("labelSelector") ?? "",
    fieldSelector: query.get("fieldSelector") ?? "",
    sendInitialEvents: query.get("sendInitialEvents") === "true",
  };
}
