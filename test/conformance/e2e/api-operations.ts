// The steps upstream's "should support <Kind> API operations" conformance tests share (certificates.go,
// ingress.go, ingressclass.go, endpointslice.go, runtimeclass.go, flowcontrol.go, …): the group in discovery, the
// resource (and its subresources) in the group version's list, then create/get/list/watch/patch/update/delete/
// deletecollection of objects the test labelled. Raw requests, as the tests' discovery and dynamic clients send them.
import { expect } from "vitest";
import type { E2eCluster } from "./harness.js";

export interface ListBody<T = Obj> {
  metadata: { resourceVersion: string };
  items: T[];
}
export interface Obj {
  metadata: {
    name: string;
    namespace?: string;
    uid: string;
    resourceVersion: string;
    labels?: Record<string, string>;
    annotations?: Record<string, string>;
    deletionTimestamp?: string;
    finalizers?: string[];
  };
  spec?: Record<string, unknown>;
  status?: Record<string, unknown>;
  [k: string]: unknown;
}

const MERGE = { "content-type": "application/merge-patch+json" };

/** The discovery checks: `/apis` lists the group's version, `/apis/<group>` too, the version lists `resources`. */
export async function expectDiscovered(c: E2eCluster, group: string, version: string, resources: readonly string[]) {
  const groups = (await c.raw("GET", "/apis")).json as {
    groups: Array<{ name: string; versions: Array<{ version: string }> }>;
  };
  expect(groups.groups.find((g) => g.name === group)?.versions.map((v) => v.version)).toContain(version);
  const g = (await c.raw("GET", `/apis/${group}`)).json as { versions: Array<{ version: string }> };
  expect(g.versions.map((v) => v.version)).toContain(version);
  const list = (await c.raw("GET", `/apis/${group}/${version}`)).json as { resources: Array<{ name: string }> };
  for (const r of resources) expect(list.resources.map((x) => x.name)).toContain(r);
}

/** A typed-enough REST client for one collection path (`/apis/g/v[/namespaces/ns]/resource`). */
export function collection(c: E2eCluster, base: string) {
  const ok = async <T>(method: string, path: string, body?: unknown, headers?: Record<string, string>) => {
    const res = await c.raw(method, path, body, headers);
    if (res.status >= 300) throw Object.assign(new Error(`${method} ${path}: ${res.status} ${res.text}`), res);
    return res.json as T;
  };
  return {
    base,
    create: (body: unknown) => ok<Obj>("POST", base, body),
    get: (name: string, sub = "") => ok<Obj>("GET", `${base}/${name}${sub === "" ? "" : `/${sub}`}`),
    list: (query: string) => ok<ListBody>("GET", `${base}?${query}`),
    mergePatch: (name: string, patch: unknown, sub = "") =>
      ok<Obj>("PATCH", `${base}/${name}${sub === "" ? "" : `/${sub}`}`, patch, MERGE),
    update: (obj: Obj, sub = "") => ok<Obj>("PUT", `${base}/${obj.metadata.name}${sub === "" ? "" : `/${sub}`}`, obj),
    delete: (name: string) => ok<unknown>("DELETE", `${base}/${name}`),
    deleteCollection: (query: string) => ok<unknown>("DELETE", `${base}?${query}`),
    status: async (name: string) => (await c.raw("GET", `${base}/${name}`)).status,
  };
}

/**
 * Get-modify-update retried on a 409, as client-go's `retry.RetryOnConflict(retry.DefaultRetry, …)` (5 tries).
 */
export async function retryOnConflict(
  col: ReturnType<typeof collection>,
  name: string,
  mutate: (o: Obj) => void,
  sub = "",
): Promise<Obj> {
  for (let attempt = 0; ; attempt++) {
    const o = await col.get(name);
    mutate(o);
    try {
      return await col.update(o, sub);
    } catch (err) {
      if ((err as { status?: number }).status !== 409 || attempt >= 4) throw err;
    }
  }
}
