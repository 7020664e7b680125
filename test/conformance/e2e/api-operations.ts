// The steps upstream's "should support <Kind> API operations" conformance tests share (certificates.go,
// ingress.go, ingressclass.go, endpointslice.go, runtimeclass.go, flowcontrol.go, …): the group in discovery, the
// resource (and its subresources) in the group version's list, then create/get/list/watch/patch/update/delete/
// deletecollection of objects the test labelled. Raw requests, as the tests' discovery and dynamic clients send them.
import { expect } from "vitest";
import { codeOf, type E2eCluster, watchEvents } from "./harness.js";

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

/** The HTTP status of a failed request: a {@link collection} error's `status`, a client-node error's `code`. */
const statusOf = (err: unknown): number | undefined => (err as { status?: number }).status ?? codeOf(err);

/**
 * Read-modify-write retried on a 409 Conflict, as client-go's `retry.RetryOnConflict` (`tries` attempts, default 5 as
 * `retry.DefaultRetry`; the tests of objects a controller keeps writing to pass more).
 */
export async function updateOnConflict<T>(
  read: () => Promise<T>,
  mutate: (o: T) => void,
  write: (o: T) => Promise<T>,
  tries = 5,
): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    const o = await read();
    mutate(o);
    try {
      return await write(o);
    } catch (err) {
      if (statusOf(err) !== 409 || attempt >= tries) throw err;
    }
  }
}

/** {@link updateOnConflict} of one object of a {@link collection} (or of its subresource `sub`). */
export function retryOnConflict(
  col: ReturnType<typeof collection>,
  name: string,
  mutate: (o: Obj) => void,
  sub = "",
): Promise<Obj> {
  return updateOnConflict(
    () => col.get(name),
    mutate,
    (o) => col.update(o, sub),
  );
}

/** The tests' "creating": `template` created three times; a get of the last returns it. Returns the last. */
export async function createThree(col: ReturnType<typeof collection>, template: unknown): Promise<Obj> {
  await col.create(template);
  await col.create(template);
  const created = await col.create(template);
  expect((await col.get(created.metadata.name)).metadata.uid).toBe(created.metadata.uid);
  return created;
}

/** Watches `path` with `query` while `act` runs; returns the events up to the first carrying annotation `key`. */
export async function watchUntilAnnotated(
  c: E2eCluster,
  path: string,
  query: Record<string, string>,
  key: string,
  act: () => Promise<void>,
): Promise<Array<{ type: string; object: Obj }>> {
  const annotated = (e: { object: unknown }) => (e.object as Obj).metadata.annotations?.[key] === "true";
  const events = await watchEvents(c, path, query, (evs) => evs.some(annotated), act);
  expect(events.some(annotated)).toBe(true);
  return events as Array<{ type: string; object: Obj }>;
}

/** What {@link patchAndUpdateWatched} changes besides the `patched`/`updated` annotations. */
export interface PatchAndUpdate {
  /** Merged into the patch (`spec: {…}`). */
  readonly patch?: Record<string, unknown>;
  /** Applied to the object before the update. */
  readonly mutate?: (o: Obj) => void;
  /** Checks the answer of each step. */
  readonly check?: (o: Obj, step: "patched" | "updated") => void;
  /** Update the patched answer as it is, not a fresh read retried on conflict (the tests that do so). */
  readonly updatePatched?: boolean;
}

/**
 * The tests' "patching" and "updating" under a watch from `watchQuery`: a merge patch adding annotation
 * `patched: "true"`, then an update adding `updated: "true"`; the watch sees only MODIFIED events up to the update.
 */
export async function patchAndUpdateWatched(
  c: E2eCluster,
  col: ReturnType<typeof collection>,
  name: string,
  watchQuery: Record<string, string>,
  o: PatchAndUpdate = {},
): Promise<void> {
  const events = await watchUntilAnnotated(c, col.base, watchQuery, "updated", async () => {
    const patched = await col.mergePatch(name, { metadata: { annotations: { patched: "true" } }, ...o.patch });
    expect(patched.metadata.annotations?.patched).toBe("true");
    o.check?.(patched, "patched");
    const annotate = (x: Obj) => {
      x.metadata.annotations = { ...x.metadata.annotations, updated: "true" };
      o.mutate?.(x);
    };
    let updated: Obj;
    if (o.updatePatched === true) {
      annotate(patched);
      updated = await col.update(patched);
    } else {
      updated = await retryOnConflict(col, name, annotate);
    }
    expect(updated.metadata.annotations?.updated).toBe("true");
    o.check?.(updated, "updated");
  });
  for (const e of events) expect(e.type).toBe("MODIFIED");
}

/**
 * The tests' `/status` condition steps: a merge patch of `/status` with condition `patchedType`, then an update of
 * `/status` appending `updatedType` (retried on conflict); each answer carries its condition.
 */
export async function patchAndUpdateStatusConditions(
  col: ReturnType<typeof collection>,
  name: string,
  patchedType: string,
  updatedType: string,
  extra: Record<string, string> = {},
): Promise<void> {
  type Cond = { type: string };
  const types = (o: Obj) => ((o.status?.conditions ?? []) as Cond[]).map((x) => x.type);
  const condition = (type: string, reason: string) => ({ type, status: "False", reason, ...extra });
  const patched = await col.mergePatch(name, { status: { conditions: [condition(patchedType, "e2e")] } }, "status");
  expect(types(patched)).toContain(patchedType);
  const updated = await retryOnConflict(
    col,
    name,
    (o) => {
      o.status = {
        ...o.status,
        conditions: [
          ...((o.status?.conditions ?? []) as Cond[]),
          { ...condition(updatedType, "E2E"), message: "Set from an e2e test" },
        ],
      };
    },
    "status",
  );
  expect(types(updated)).toContain(updatedType);
}

/**
 * The tests' "deleting": `name` deleted and gone (404), `remaining` objects left under `query` (those `counted`), and
 * a deletecollection of `query` leaving none (none `counted`; default every object).
 */
export async function deleteOneThenCollection(
  col: ReturnType<typeof collection>,
  name: string,
  query: string,
  remaining: number,
  counted: (o: Obj) => boolean = () => true,
): Promise<void> {
  await col.delete(name);
  expect(await col.status(name)).toBe(404);
  expect((await col.list(query)).items.filter(counted)).toHaveLength(remaining);
  await col.deleteCollection(query);
  expect((await col.list(query)).items.filter(counted)).toEqual([]);
}

/**
 * A deletecollection (`deleteCollection…`), then `list` polled until it is empty: the objects go when the garbage
 * collector and the workload controllers have let go of them.
 */
export async function collectionDeleted(
  deleteCollection: () => Promise<unknown>,
  list: () => Promise<{ items: readonly unknown[] }>,
  poll: { timeout: number; interval: number } = { timeout: 20_000, interval: 25 },
): Promise<void> {
  await deleteCollection();
  await expect.poll(async () => (await list()).items.length, poll).toBe(0);
}
