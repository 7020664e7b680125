import type { Pod } from "@informer-ts/client";

interface EnvVar {
  readonly name?: string;
  readonly value?: string;
  readonly valueFrom?: { readonly fieldRef?: { readonly fieldPath?: string } };
}

/**
 * A container's environment as the kubelet resolves it for `$(VAR)` references: literal `value`s, and `fieldRef`s to
 * `metadata.name`, `metadata.namespace`, `metadata.uid`, `spec.nodeName`, `spec.serviceAccountName` and
 * `metadata.labels['k']` / `metadata.annotations['k']` (the downward API fields a Job's `JOB_COMPLETION_INDEX` uses).
 * Other sources (ConfigMaps, Secrets, resources) are not resolved; later entries win, as in the container runtime.
 */
export function containerEnv(pod: Pod, container = 0): ReadonlyMap<string, string> {
  const c = (pod.spec?.containers ?? [])[container] as { env?: EnvVar[] } | undefined;
  const out = new Map<string, string>();
  for (const e of c?.env ?? []) {
    if (typeof e?.name !== "string") continue;
    if (typeof e.value === "string") out.set(e.name, e.value);
    else {
      const v = fieldValue(pod, e.valueFrom?.fieldRef?.fieldPath);
      if (v !== undefined) out.set(e.name, v);
    }
  }
  return out;
}

function fieldValue(pod: Pod, path: string | undefined): string | undefined {
  const meta = pod.metadata;
  switch (path) {
    case "metadata.name":
      return meta?.name;
    case "metadata.namespace":
      return meta?.namespace;
    case "metadata.uid":
      return meta?.uid;
    case "spec.nodeName":
      return pod.spec?.nodeName;
    case "spec.serviceAccountName":
      return pod.spec?.serviceAccountName;
  }
  const m = /^metadata\.(labels|annotations)\['([^']*)'\]$/.exec(path ?? "");
  if (m === null) return undefined;
  return (m[1] === "labels" ? meta?.labels : meta?.annotations)?.[m[2]!];
}

/**
 * `expansion.Expand` for a container command: each `$(VAR)` becomes the variable's value from `env`, `$$` becomes `$`,
 * and a reference to an unknown variable stays as written.
 */
export function expandEnv(text: string, env: ReadonlyMap<string, string>): string {
  return text.replace(/\$\$|\$\(([A-Za-z_][A-Za-z0-9_.-]*)\)/g, (all, name: string | undefined) =>
    name === undefined ? "$" : (env.get(name) ?? all),
  );
}
