import type { KubeObject } from "@informer-ts/apimachinery";
import { KUBERNETES_SERVICE_IP } from "../controllers/kubernetes-service.js";
import { resourceFieldValue } from "./resource-field.js";

/** What {@link containerOutput} reads besides the pod: the objects its env and volumes name. */
export interface ContainerWorld {
  readonly configMap: (namespace: string, name: string) => KubeObject | undefined;
  readonly secret: (namespace: string, name: string) => KubeObject | undefined;
  /** The projected service-account token of the pod (issued at the container's start), if one can be issued. */
  readonly token: (pod: KubeObject, serviceAccount: string) => string | undefined;
  /** The Node named `name` (its allocatable fills a `resourceFieldRef`'s unset limits); absent: no node known. */
  readonly node?: (name: string) => KubeObject | undefined;
}

/** The pod's Node, if `world` knows it. */
function nodeOf(pod: KubeObject, world: ContainerWorld): KubeObject | undefined {
  const name = str(((pod.spec ?? {}) as Obj).nodeName);
  return name === "" ? undefined : world.node?.(name);
}

/** A file of a mounted volume: its text and permission bits. */
export interface MountedFile {
  readonly content: string;
  readonly mode: number;
}

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === "object" && v !== null && !Array.isArray(v);
const list = (v: unknown): Obj[] => (Array.isArray(v) ? v.filter(isObj) : []);
const str = (v: unknown): string => (typeof v === "string" ? v : "");

/** Base image environment every container starts with (before the pod's own variables). */
const BASE_PATH = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin";

function secretValue(s: KubeObject | undefined, key: string): string | undefined {
  const data = (s as { data?: Record<string, string> } | undefined)?.data;
  const v = data?.[key];
  return v === undefined ? undefined : Buffer.from(v, "base64").toString("utf8");
}

function configMapValue(c: KubeObject | undefined, key: string): string | undefined {
  const o = c as { data?: Record<string, string>; binaryData?: Record<string, string> } | undefined;
  const v = o?.data?.[key];
  if (v !== undefined) return v;
  const b = o?.binaryData?.[key];
  return b === undefined ? undefined : Buffer.from(b, "base64").toString("utf8");
}

/** A downward-API `fieldRef.fieldPath` of `pod` (`metadata.labels['app']` too), as kubelet formats it. */
function fieldValue(pod: KubeObject, path: string): string | undefined {
  const meta = pod.metadata ?? {};
  const spec = (pod.spec ?? {}) as Obj;
  const status = ((pod as { status?: unknown }).status ?? {}) as Obj;
  const keyed = /^metadata\.(labels|annotations)\['(.+)'\]$/.exec(path);
  if (keyed !== null)
    return (meta[keyed[1] as "labels" | "annotations"] as Record<string, string> | undefined)?.[keyed[2]!];
  const pairs = (m: Record<string, string> | undefined) =>
    Object.keys(m ?? {})
      .sort()
      .map((k) => `${k}=${JSON.stringify(m![k])}`)
      .join("\n");
  switch (path) {
    case "metadata.name":
      return meta.name ?? "";
    case "metadata.namespace":
      return meta.namespace ?? "";
    case "metadata.uid":
      return meta.uid ?? "";
    case "metadata.labels":
      return pairs(meta.labels);
    case "metadata.annotations":
      return pairs(meta.annotations);
    case "spec.nodeName":
      return str(spec.nodeName);
    case "spec.serviceAccountName":
      return str(spec.serviceAccountName);
    case "status.podIP":
      return str(status.podIP);
    case "status.hostIP":
      return str(status.hostIP);
    case "status.podIPs":
      return list(status.podIPs)
        .map((p) => str(p.ip))
        .join(",");
    case "status.hostIPs":
      return list(status.hostIPs)
        .map((p) => str(p.ip))
        .join(",");
    default:
      return undefined;
  }
}

/** kubelet's `$(VAR)` expansion of env values, command and args (`$$` escapes; an unknown name stays as written). */
function expandRefs(s: string, env: ReadonlyMap<string, string>): string {
  return s.replace(/\$\$|\$\(([A-Za-z_][A-Za-z0-9_.-]*)\)/g, (m, name: string | undefined) =>
    name === undefined ? "$" : (env.get(name) ?? m),
  );
}

/**
 * The environment of `container` in `pod` (kubelet's `makeEnvironmentVariables`): `PATH` and `HOSTNAME`, the
 * `kubernetes` service's variables, then `envFrom` (ConfigMap and Secret keys with their prefix; names that are not
 * valid variable names skipped), then `env` (values with `$(VAR)` expanded, `configMapKeyRef`, `secretKeyRef`,
 * `fieldRef`, `resourceFieldRef`), later ones replacing earlier; a missing key or object leaves the variable out.
 */
export function containerEnv(pod: KubeObject, container: Obj, world: ContainerWorld): Map<string, string> {
  const ns = pod.metadata?.namespace ?? "";
  const env = new Map<string, string>([
    ["PATH", BASE_PATH],
    ["HOSTNAME", pod.metadata?.name ?? ""],
    ["KUBERNETES_SERVICE_HOST", KUBERNETES_SERVICE_IP],
    ["KUBERNETES_SERVICE_PORT", "443"],
    ["KUBERNETES_SERVICE_PORT_HTTPS", "443"],
    ["KUBERNETES_PORT", `tcp://${KUBERNETES_SERVICE_IP}:443`],
    ["KUBERNETES_PORT_443_TCP", `tcp://${KUBERNETES_SERVICE_IP}:443`],
    ["KUBERNETES_PORT_443_TCP_PROTO", "tcp"],
    ["KUBERNETES_PORT_443_TCP_PORT", "443"],
    ["KUBERNETES_PORT_443_TCP_ADDR", KUBERNETES_SERVICE_IP],
  ]);
  for (const from of list(container.envFrom)) {
    const prefix = str(from.prefix);
    const cmRef = isObj(from.configMapRef) ? from.configMapRef : undefined;
    const secRef = isObj(from.secretRef) ? from.secretRef : undefined;
    if (cmRef !== undefined) {
      const cm = world.configMap(ns, str(cmRef.name));
      const data = (cm as { data?: Record<string, string> } | undefined)?.data ?? {};
      for (const [k, v] of Object.entries(data))
        if (/^[-._a-zA-Z][-._a-zA-Z0-9]*$/.test(prefix + k)) env.set(prefix + k, v);
    } else if (secRef !== undefined) {
      const s = world.secret(ns, str(secRef.name));
      const data = (s as { data?: Record<string, string> } | undefined)?.data ?? {};
      for (const k of Object.keys(data))
        if (/^[-._a-zA-Z][-._a-zA-Z0-9]*$/.test(prefix + k)) env.set(prefix + k, secretValue(s, k) ?? "");
    }
  }
  for (const e of list(container.env)) {
    const name = str(e.name);
    const from = isObj(e.valueFrom) ? e.valueFrom : undefined;
    let value: string | undefined;
    if (from === undefined) value = expandRefs(str(e.value), env);
    else if (isObj(from.configMapKeyRef))
      value = configMapValue(world.configMap(ns, str(from.configMapKeyRef.name)), str(from.configMapKeyRef.key));
    else if (isObj(from.secretKeyRef))
      value = secretValue(world.secret(ns, str(from.secretKeyRef.name)), str(from.secretKeyRef.key));
    else if (isObj(from.fieldRef)) value = fieldValue(pod, str(from.fieldRef.fieldPath));
    else if (isObj(from.resourceFieldRef))
      value = resourceFieldValue(pod, container, from.resourceFieldRef, nodeOf(pod, world));
    if (value !== undefined) env.set(name, value);
  }
  env.set("HOME", env.get("HOME") ?? "/root");
  return env;
}

function join(dir: string, file: string): string {
  return `${dir.replace(/\/+$/, "")}/${file.replace(/^\/+/, "")}`;
}

/** The files one volume source contributes (path inside the volume → file); `defaultMode` from the volume. */
function volumeFiles(
  pod: KubeObject,
  container: Obj,
  src: Obj,
  defaultMode: number,
  world: ContainerWorld,
  sa: string,
): Map<string, MountedFile> {
  const ns = pod.metadata?.namespace ?? "";
  const out = new Map<string, MountedFile>();
  const keyed = (
    obj: KubeObject | undefined,
    value: (k: string) => string | undefined,
    items: Obj[],
    keys: string[],
  ) => {
    if (obj === undefined) return;
    if (items.length === 0) for (const k of keys) out.set(k, { content: value(k) ?? "", mode: defaultMode });
    for (const it of items) {
      const v = value(str(it.key));
      if (v !== undefined)
        out.set(str(it.path), { content: v, mode: typeof it.mode === "number" ? it.mode : defaultMode });
    }
  };
  if (isObj(src.configMap)) {
    const cm = world.configMap(ns, str(src.configMap.name));
    const o = cm as { data?: Obj; binaryData?: Obj } | undefined;
    keyed(cm, (k) => configMapValue(cm, k), list(src.configMap.items), [
      ...Object.keys(o?.data ?? {}),
      ...Object.keys(o?.binaryData ?? {}),
    ]);
  } else if (isObj(src.secret)) {
    const name = str(src.secret.secretName) || str(src.secret.name);
    const s = world.secret(ns, name);
    keyed(
      s,
      (k) => secretValue(s, k),
      list(src.secret.items),
      Object.keys((s as { data?: Obj } | undefined)?.data ?? {}),
    );
  } else if (isObj(src.downwardAPI)) {
    for (const it of list(src.downwardAPI.items)) {
      const v = isObj(it.fieldRef)
        ? fieldValue(pod, str(it.fieldRef.fieldPath))
        : isObj(it.resourceFieldRef)
          ? resourceFieldValue(pod, container, it.resourceFieldRef, nodeOf(pod, world))
          : undefined;
      if (v !== undefined)
        out.set(str(it.path), { content: v, mode: typeof it.mode === "number" ? it.mode : defaultMode });
    }
  } else if (isObj(src.serviceAccountToken)) {
    const t = world.token(pod, sa);
    if (t !== undefined) out.set(str(src.serviceAccountToken.path), { content: t, mode: defaultMode });
  }
  return out;
}

/**
 * The files `container` sees through its `volumeMounts` (absolute path → file): ConfigMap, Secret, downwardAPI and
 * projected volumes (all four source kinds, the service-account token among them) with `items` (key → path, `mode`)
 * and `defaultMode` (default 0644); a `subPath` mount shows the one file. Other volume kinds show no files.
 */
export function mountedFiles(pod: KubeObject, container: Obj, world: ContainerWorld): Map<string, MountedFile> {
  const spec = (pod.spec ?? {}) as Obj;
  const sa = str(spec.serviceAccountName) || "default";
  const volumes = new Map(list(spec.volumes).map((v) => [str(v.name), v]));
  const files = new Map<string, MountedFile>();
  for (const m of list(container.volumeMounts)) {
    const v = volumes.get(str(m.name));
    if (v === undefined) continue;
    let inVolume = new Map<string, MountedFile>();
    const mode = (o: unknown) => (isObj(o) && typeof o.defaultMode === "number" ? o.defaultMode : 0o644);
    if (isObj(v.projected)) {
      for (const src of list(v.projected.sources))
        for (const [p, f] of volumeFiles(pod, container, src, mode(v.projected), world, sa)) inVolume.set(p, f);
    } else if (isObj(v.configMap) || isObj(v.secret) || isObj(v.downwardAPI)) {
      inVolume = volumeFiles(pod, container, v, mode(v.configMap ?? v.secret ?? v.downwardAPI), world, sa);
    }
    const mountPath = str(m.mountPath);
    const sub = str(m.subPath);
    if (sub !== "") {
      const f = inVolume.get(sub);
      if (f !== undefined) files.set(mountPath, f);
      continue;
    }
    for (const [p, f] of inVolume) files.set(join(mountPath, p), f);
  }
  return files;
}

/** Go's `os.FileMode.String()` of a regular file's permission bits (`-rw-r--r--`). */
export function fileModeString(mode: number): string {
  const rwx = "rwxrwxrwx";
  let s = "-";
  for (let i = 0; i < 9; i++) s += (mode >> (8 - i)) & 1 ? rwx[i] : "-";
  return s;
}

/** Splits one simple shell command into words: whitespace, '…' and "…" quoting, `$VAR`/`${VAR}` outside '…'. */
function shellWords(cmd: string, env: ReadonlyMap<string, string>): string[] | undefined {
  const words: string[] = [];
  let cur: string | undefined;
  let quote: "'" | '"' | undefined;
  for (let i = 0; i < cmd.length; i++) {
    const ch = cmd[i]!;
    if (quote === "'") {
      if (ch === "'") quote = undefined;
      else cur += ch;
      continue;
    }
    if (ch === "$") {
      const m = /^\$(?:\{([A-Za-z_][A-Za-z0-9_]*)\}|([A-Za-z_][A-Za-z0-9_]*))/.exec(cmd.slice(i));
      if (m !== null) {
        cur = (cur ?? "") + (env.get(m[1] ?? m[2]!) ?? "");
        i += m[0].length - 1;
        continue;
      }
      if (cmd[i + 1] === "(") return undefined;
    }
    if (quote === '"') {
      if (ch === '"') quote = undefined;
      else if (ch === "\\" && i + 1 < cmd.length) cur += cmd[++i]!;
      else cur += ch;
      continue;
    }
    if (ch === "'" || ch === '"') {
      quote = ch;
      cur ??= "";
    } else if (/\s/.test(ch)) {
      if (cur !== undefined) words.push(cur);
      cur = undefined;
    } else if ("|<>`&".includes(ch)) return undefined;
    else if (ch === "\\" && i + 1 < cmd.length) cur = (cur ?? "") + cmd[++i]!;
    else cur = (cur ?? "") + ch;
  }
  if (quote !== undefined) return undefined;
  if (cur !== undefined) words.push(cur);
  return words;
}

/** Splits a `sh -c` script into its simple commands at `;`, `&&`, `||` and newlines outside quotes. */
function shellSequence(script: string): string[] {
  const out: string[] = [];
  let cur = "";
  let quote: string | undefined;
  for (let i = 0; i < script.length; i++) {
    const ch = script[i]!;
    if (quote !== undefined) {
      if (ch === quote) quote = undefined;
      cur += ch;
    } else if (ch === "'" || ch === '"') {
      quote = ch;
      cur += ch;
    } else if (ch === ";" || ch === "\n") {
      out.push(cur);
      cur = "";
    } else if ((ch === "&" || ch === "|") && script[i + 1] === ch) {
      out.push(cur);
      cur = "";
      i++;
    } else cur += ch;
  }
  out.push(cur);
  return out.map((s) => s.trim()).filter((s) => s !== "");
}

const SHELLS = new Set(["sh", "bash", "ash", "dash"]);

function textLines(s: string): string[] {
  if (s === "") return [];
  const lines = s.split("\n");
  if (lines[lines.length - 1] === "") lines.pop();
  return lines;
}

/**
 * What `container` of `pod` prints when it starts — a **model** of a few programs, not an emulator: the command is
 * `command` + `args` (`$(VAR)` expanded; without a command, `args` alone — an `agnhost` image runs `agnhost ARGS`),
 * and
 *
 * - `env`, `printenv` print the resolved environment ({@link containerEnv}) as `NAME=value` lines (`printenv NAME…`
 *   prints those values);
 * - `cat PATH…` prints files of the mounted ConfigMap, Secret, downwardAPI and projected volumes ({@link mountedFiles});
 *   a missing one prints `cat: can't open 'PATH': No such file or directory`, as busybox does;
 * - `echo WORDS…` prints them (`-n` is accepted; a log is whole lines, so the next output starts a new one);
 * - agnhost `mounttest --file_content=PATH` prints `content of file "PATH": <text>`, `--file_mode=PATH` prints
 *   `mode of file "PATH": -rw-r--r--`, and `--file_perm=PATH` prints `perms of file "PATH": -rw-r--r--`;
 * - `sh -c "<a; b && c>"` runs each simple command of the sequence (words with quotes and `$VAR` expansion);
 *
 * and anything else (pipes, redirections, sub-shells, other programs, an image's default command) prints nothing.
 * Output is one list of lines (stdout and stderr together, as a container log holds them).
 */
export function containerOutput(pod: KubeObject, containerName: string, world: ContainerWorld): string[] {
  const spec = (pod.spec ?? {}) as Obj;
  const container = [...list(spec.initContainers), ...list(spec.containers)].find((c) => c.name === containerName);
  if (container === undefined) return [];
  const env = containerEnv(pod, container, world);
  let argv = [
    ...(Array.isArray(container.command) ? container.command : []),
    ...(Array.isArray(container.args) ? container.args : []),
  ].map((a) => expandRefs(String(a), env));
  // Without a command the image's entrypoint runs `args`: agnhost's is `/agnhost`; busybox-like images have none.
  const noCommand = !Array.isArray(container.command) || container.command.length === 0;
  if (noCommand && str(container.image).includes("agnhost")) argv = ["/agnhost", ...argv];
  let files: Map<string, MountedFile> | undefined;
  const fileAt = (p: string) => {
    files ??= mountedFiles(pod, container, world);
    return files.get(p);
  };
  const out: string[] = [];
  const run = (words: readonly string[]): void => {
    const prog = (words[0] ?? "").split("/").pop() ?? "";
    const rest = words.slice(1);
    if (SHELLS.has(prog)) {
      const c = rest.indexOf("-c");
      if (c < 0 || rest[c + 1] === undefined) return;
      for (const cmd of shellSequence(rest[c + 1]!)) {
        const w = shellWords(cmd, env);
        if (w !== undefined) run(w);
      }
    } else if (prog === "env" && rest.length === 0) {
      for (const [k, v] of env) out.push(...textLines(`${k}=${v}`));
    } else if (prog === "printenv") {
      if (rest.length === 0) for (const [k, v] of env) out.push(...textLines(`${k}=${v}`));
      else for (const n of rest) if (env.has(n)) out.push(...(env.get(n) === "" ? [""] : textLines(env.get(n)!)));
    } else if (prog === "echo") {
      const noNewline = rest[0] === "-n";
      const text = (noNewline ? rest.slice(1) : rest).join(" ");
      if (noNewline) out.push(...textLines(text));
      else out.push(text);
    } else if (prog === "cat") {
      for (const p of rest) {
        const f = fileAt(p);
        if (f === undefined) out.push(`cat: can't open '${p}': No such file or directory`);
        else out.push(...textLines(f.content));
      }
    } else if (prog === "agnhost" && rest[0] === "mounttest") {
      for (const flag of rest.slice(1)) {
        const m = /^--?(file_content|file_mode|file_perm)=(.*)$/.exec(flag);
        if (m === null) continue;
        const f = fileAt(m[2]!);
        if (f === undefined) {
          out.push(`Error reading file "${m[2]}": open ${m[2]}: no such file or directory`);
          continue;
        }
        if (m[1] === "file_content") out.push(...textLines(`content of file "${m[2]}": ${f.content}`));
        else out.push(`${m[1] === "file_mode" ? "mode" : "perms"} of file "${m[2]}": ${fileModeString(f.mode)}`);
      }
    }
  };
  run(argv);
  return out;
}
