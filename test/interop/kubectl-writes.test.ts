// kubectl against the simulated apiserver's write path (issue #10 item 1, issue #11): namespaces, describe,
// label/annotate/edit/patch, --watch-only, output formats, field selectors, chunked lists, cascading deletes and a
// deletion held by a finalizer. Objects are created with `create -f` (JSON through kubectl's dynamic client); the
// typed `create configmap|secret|ns|deployment|job` (protobuf bodies) are covered by kubectl-create.test.ts.
import { chmodSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { useKubectlSim } from "./kubectl-cluster-harness.js";
import { watchOpened } from "./watch-opened.js";

describe("interop: kubectl writes", () => {
  const { k, sim, dir, stream, manifest, require: requireKubectl } = useKubectlSim("kubectl-writes");
  /** `kubectl create -f` of one object (JSON manifest). */
  const make = (obj: Record<string, unknown>) =>
    k(["create", "-f", manifest(`obj-${Math.random().toString(36).slice(2)}`, obj)]);
  const cm = (name: string, data: Record<string, string> = {}, namespace?: string) =>
    make({ apiVersion: "v1", kind: "ConfigMap", metadata: { name, ...(namespace && { namespace }) }, data });
  const json = async (args: string[]) => {
    const r = await k([...args, "-o", "json"]);
    expect(r.stderr).toBe("");
    return JSON.parse(r.stdout);
  };

  it("create -f of configmap, secret, namespace, deployment; get ns lists the system namespaces", async (ctx) => {
    requireKubectl(ctx);
    expect((await cm("kc-cm", { a: "b" })).stdout.trim()).toBe("configmap/kc-cm created");
    const sec = await make({
      apiVersion: "v1",
      kind: "Secret",
      metadata: { name: "kc-secret" },
      stringData: { p: "q" },
    });
    expect(sec.stdout.trim()).toBe("secret/kc-secret created");
    const b64 = (v: string) => Buffer.from(v, "utf8").toString("base64");
    const stored = await json(["get", "secret", "kc-secret"]);
    expect(stored.data).toEqual({ p: b64("q") });
    expect(stored.stringData).toBeUndefined();
    // apply (client-side: create, then a strategic merge patch; then server-side) merges stringData into data too.
    const applied = (stringData: Record<string, string>) =>
      manifest(`applied-secret-${Object.keys(stringData).join("")}`, {
        apiVersion: "v1",
        kind: "Secret",
        metadata: { name: "kc-applied" },
        stringData,
      });
    expect((await k(["apply", "-f", applied({ a: "1" })])).stdout.trim()).toBe("secret/kc-applied created");
    expect((await json(["get", "secret", "kc-applied"])).data).toEqual({ a: b64("1") });
    expect((await k(["apply", "-f", applied({ a: "2" })])).stdout.trim()).toBe("secret/kc-applied configured");
    expect((await json(["get", "secret", "kc-applied"])).data).toEqual({ a: b64("2") });
    const ssa = await k(["apply", "--server-side", "--field-manager=t", "-f", applied({ b: "3" })]);
    expect(ssa.stdout.trim()).toBe("secret/kc-applied serverside-applied");
    const afterSsa = await json(["get", "secret", "kc-applied"]);
    expect(afterSsa.data).toMatchObject({ b: b64("3") });
    expect(afterSsa.stringData).toBeUndefined();
    const ns = await make({ apiVersion: "v1", kind: "Namespace", metadata: { name: "kc-ns" } });
    expect(ns.stdout.trim()).toBe("namespace/kc-ns created");
    const dep = await make({
      apiVersion: "apps/v1",
      kind: "Deployment",
      metadata: { name: "kc-dep", namespace: "kc-ns" },
      spec: {
        replicas: 1,
        selector: { matchLabels: { app: "kc" } },
        template: { metadata: { labels: { app: "kc" } }, spec: { containers: [{ name: "c", image: "nginx" }] } },
      },
      status: { replicas: 9 },
    });
    expect(dep.stderr).toBe("");
    expect(dep.stdout.trim()).toBe("deployment.apps/kc-dep created");
    const d = await json(["get", "deployment", "kc-dep", "-n", "kc-ns"]);
    expect(d.metadata.generation).toBe(1);
    expect(d.status).toBeUndefined();
    const list = await k(["get", "ns"]);
    for (const n of ["default", "kube-system", "kube-public", "kube-node-lease", "kc-ns"]) {
      expect(list.stdout).toMatch(new RegExp(`^${n}\\s+Active\\s`, "m"));
    }
    expect((await json(["get", "ns", "kc-ns"])).spec).toEqual({ finalizers: ["kubernetes"] });
    const missing = await cm("x", {}, "no-such-ns");
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain('namespaces "no-such-ns" not found');
  });

  it("describe, label, annotate, patch (merge, json, strategic) and edit with EDITOR set to a script", async (ctx) => {
    requireKubectl(ctx);
    await cm("kc-edit", { a: "1" });
    const desc = await k(["describe", "configmap", "kc-edit"]);
    expect(desc.stderr).toBe("");
    expect(desc.stdout).toMatch(/^Name:\s+kc-edit$/m);
    expect((await k(["label", "configmap", "kc-edit", "team=a"])).stdout.trim()).toBe("configmap/kc-edit labeled");
    expect((await k(["annotate", "configmap", "kc-edit", "note=x"])).stdout.trim()).toBe("configmap/kc-edit annotated");
    const merge = await k(["patch", "configmap", "kc-edit", "--type=merge", "-p", '{"data":{"b":"2"}}']);
    expect(merge.stdout.trim()).toBe("configmap/kc-edit patched");
    const jp = await k(["patch", "configmap", "kc-edit", "--type=json", "-p", '[{"op":"remove","path":"/data/a"}]']);
    expect(jp.stdout.trim()).toBe("configmap/kc-edit patched");
    const failing = await k([
      "patch",
      "configmap",
      "kc-edit",
      "--type=json",
      "-p",
      '[{"op":"test","path":"/data/b","value":"nope"}]',
    ]);
    expect(failing.code).toBe(1);
    expect(failing.stderr).toContain("the server rejected our request due to an error in our request");
    const smp = await k(["patch", "configmap", "kc-edit", "-p", '{"metadata":{"finalizers":["example.com/f"]}}']);
    expect(smp.stdout.trim()).toBe("configmap/kc-edit patched");
    const smp2 = await k(["patch", "configmap", "kc-edit", "-p", '{"metadata":{"finalizers":["example.com/g"]}}']);
    expect(smp2.stdout.trim()).toBe("configmap/kc-edit patched");
    const editor = join(dir(), "editor.sh");
    writeFileSync(editor, '#!/bin/sh\nsed -i "s/^  b: .*/  b: edited/" "$1"\n');
    chmodSync(editor, 0o755);
    const ed = await k(["edit", "configmap", "kc-edit"], { env: { EDITOR: editor, KUBE_EDITOR: editor } });
    expect(ed.stderr).toBe("");
    expect(ed.stdout.trim()).toBe("configmap/kc-edit edited");
    const got = await json(["get", "configmap", "kc-edit"]);
    expect(got.data).toEqual({ b: "edited" });
    expect(got.metadata.labels).toEqual({ team: "a" });
    expect(got.metadata.annotations).toMatchObject({ note: "x" });
    // Strategic merge: finalizers is a merge list (union), not replaced.
    expect(got.metadata.finalizers).toEqual(["example.com/f", "example.com/g"]);
    await k(["patch", "configmap", "kc-edit", "--type=merge", "-p", '{"metadata":{"finalizers":null}}']);
  });

  it("-o yaml|json|wide|name|jsonpath, --field-selector and --chunk-size", async (ctx) => {
    requireKubectl(ctx);
    for (let i = 0; i < 5; i++) await cm(`kc-o${i}`, { i: String(i) });
    expect((await k(["get", "cm", "kc-o1", "-o", "yaml"])).stdout).toMatch(/^ {2}name: kc-o1$/m);
    expect((await json(["get", "cm", "kc-o1"])).data).toEqual({ i: "1" });
    expect((await k(["get", "cm", "kc-o1", "-o", "wide"])).stdout).toMatch(/^kc-o1\s+1\s+\S+$/m);
    expect((await k(["get", "cm", "kc-o1", "-o", "name"])).stdout.trim()).toBe("configmap/kc-o1");
    expect((await k(["get", "cm", "kc-o1", "-o", "jsonpath={.data.i}"])).stdout).toBe("1");
    const sel = await k(["get", "cm", "--field-selector", "metadata.name=kc-o2", "-o", "name"]);
    expect(sel.stdout.trim()).toBe("configmap/kc-o2");
    const chunked = await k(["get", "cm", "--chunk-size=2", "-o", "name"]);
    for (let i = 0; i < 5; i++) expect(chunked.stdout).toContain(`configmap/kc-o${i}`);
  });

  it("get --watch-only prints only changes", async (ctx) => {
    requireKubectl(ctx);
    await cm("kc-w0");
    const w = stream(["get", "cm", "--watch-only", "-o", "name"]);
    try {
      await watchOpened(sim(), "configmaps");
      await cm("kc-w1");
      await w.waitForLine(/configmap\/kc-w1/, 20_000);
      expect(w.lines).not.toContain("configmap/kc-w0");
    } finally {
      await w.kill();
    }
  });

  it("delete --cascade=background|foreground|orphan: the garbage collector follows ownerReferences", async (ctx) => {
    requireKubectl(ctx);
    const owner = async (name: string) => (await json(["get", "cm", name])).metadata.uid as string;
    const dependent = async (name: string, ownerName: string, uid: string) => {
      const f = manifest(name, {
        apiVersion: "v1",
        kind: "ConfigMap",
        metadata: {
          name,
          ownerReferences: [{ apiVersion: "v1", kind: "ConfigMap", name: ownerName, uid, blockOwnerDeletion: true }],
        },
      });
      expect((await k(["create", "-f", f])).code).toBe(0);
    };
    for (const mode of ["background", "foreground", "orphan"]) {
      await cm(`own-${mode}`);
      await dependent(`dep-${mode}`, `own-${mode}`, await owner(`own-${mode}`));
      const del = await k(["delete", "cm", `own-${mode}`, `--cascade=${mode}`]);
      expect(del.stdout.trim()).toBe(`configmap "own-${mode}" deleted`);
    }
    await expect.poll(async () => (await k(["get", "cm", "dep-background"])).code, { timeout: 10_000 }).toBe(1);
    await expect.poll(async () => (await k(["get", "cm", "dep-foreground"])).code, { timeout: 10_000 }).toBe(1);
    await expect.poll(async () => (await k(["get", "cm", "own-foreground"])).code, { timeout: 10_000 }).toBe(1);
    await expect
      .poll(async () => (await json(["get", "cm", "dep-orphan"])).metadata.ownerReferences, { timeout: 10_000 })
      .toBeUndefined();
    expect((await k(["get", "cm", "own-orphan"])).code).toBe(1);
  });

  it("a deletion held by a finalizer: kubectl get shows it until a patch removes the finalizer", async (ctx) => {
    requireKubectl(ctx);
    await cm("kc-held");
    await k(["patch", "cm", "kc-held", "--type=merge", "-p", '{"metadata":{"finalizers":["example.com/hold"]}}']);
    const del = await k(["delete", "cm", "kc-held", "--wait=false"]);
    expect(del.stdout.trim()).toBe('configmap "kc-held" deleted');
    const held = await json(["get", "cm", "kc-held"]);
    expect(held.metadata.deletionTimestamp).toEqual(expect.any(String));
    expect(held.metadata.deletionGracePeriodSeconds).toBe(0);
    const add = await k([
      "patch",
      "cm",
      "kc-held",
      "--type=merge",
      "-p",
      '{"metadata":{"finalizers":["a.io/x","example.com/hold"]}}',
    ]);
    expect(add.code).toBe(1);
    expect(add.stderr).toContain("no new finalizers can be added if the object is being deleted");
    const bad = await k(["patch", "cm", "kc-edit", "--type=merge", "-p", '{"metadata":{"finalizers":["not a name"]}}']);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toContain("metadata.finalizers[0]: Invalid value");
    await k(["patch", "cm", "kc-held", "--type=json", "-p", '[{"op":"remove","path":"/metadata/finalizers"}]']);
    expect((await k(["get", "cm", "kc-held"])).code).toBe(1);
  });

  it("delete ns: Terminating, its content deleted, then the namespace; creates in it are forbidden meanwhile", async (ctx) => {
    requireKubectl(ctx);
    await make({ apiVersion: "v1", kind: "Namespace", metadata: { name: "kc-gone" } });
    await cm("held", {}, "kc-gone");
    await k([
      "patch",
      "cm",
      "held",
      "-n",
      "kc-gone",
      "--type=merge",
      "-p",
      '{"metadata":{"finalizers":["example.com/h"]}}',
    ]);
    const del = await k(["delete", "ns", "kc-gone", "--wait=false"]);
    expect(del.stdout.trim()).toBe('namespace "kc-gone" deleted');
    expect((await k(["get", "ns", "kc-gone"])).stdout).toMatch(/^kc-gone\s+Terminating\s/m);
    const create = await cm("late", {}, "kc-gone");
    expect(create.stderr).toContain(
      'configmaps "late" is forbidden: unable to create new content in namespace kc-gone because it is being terminated',
    );
    await k(["patch", "cm", "held", "-n", "kc-gone", "--type=merge", "-p", '{"metadata":{"finalizers":null}}']);
    await expect.poll(async () => (await k(["get", "ns", "kc-gone"])).code, { timeout: 10_000 }).toBe(1);
    const immortal = await k(["delete", "ns", "default"]);
    expect(immortal.stderr).toContain('namespaces "default" is forbidden: this namespace may not be deleted');
  });
});
