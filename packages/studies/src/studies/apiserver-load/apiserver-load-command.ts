// `informer scenario apiserver-load`: the flags of study 004 and their checks; --log writes the simulator's audit
// lines for `informer analyze-logs`.
import { writeFileSync } from "node:fs";
import { extname } from "node:path";
import { KUBE_VERSIONS, type KubeVersion } from "@informer-ts/sim-apiserver";
import { listFlag, numberFlag, outputFileFlag } from "../../cli-flags.js";
import type { ScenarioCommandDefinition } from "../study-command-definition.js";
import { runApiserverLoad } from "./apiserver-load.js";

/**
 * Where `--log <file>` writes the lines of `version`: `file` itself for a single version, else the version before
 * the extension (`load.log` → `load-1.22.log`).
 */
export function logFileFor(file: string, version: KubeVersion, versions: readonly KubeVersion[]): string {
  if (versions.length <= 1) return file;
  const ext = extname(file);
  return `${file.slice(0, file.length - ext.length)}-${version}${ext}`;
}

/** `informer scenario apiserver-load`; its usage is `APISERVER_LOAD_USAGE` in cli-usage.ts. */
export const apiserverLoadCommand: ScenarioCommandDefinition = {
  options: {
    "kube-version": { type: "string", default: "1.22,1.34" },
    pods: { type: "string", default: "5000" },
    namespaces: { type: "string", default: "50" },
    apps: { type: "string", default: "10" },
    informers: { type: "string", default: "4" },
    "restart-interval": { type: "string", default: "60" },
    "watch-list": { type: "boolean", default: false },
    "kubectl-interval": { type: "string", default: "10" },
    "plain-list-interval": { type: "string", default: "30" },
    nodes: { type: "string", default: "100" },
    "kubelet-interval": { type: "string", default: "10" },
    "configmaps-per-node": { type: "string", default: "2" },
    "writes-per-sec": { type: "string", default: "20" },
    duration: { type: "string", default: "300" },
    sample: { type: "string", default: "5" },
    log: { type: "string" },
  },
  async run(values, common) {
    const versions = listFlag(values, "kube-version", KUBE_VERSIONS);
    const sample = numberFlag(values, "sample", 0.001);
    const log = outputFileFlag(values, "log");
    const lines = new Map<KubeVersion, string[]>();
    const report = await runApiserverLoad({
      versions,
      pods: numberFlag(values, "pods", 0, true),
      namespaces: numberFlag(values, "namespaces", 1, true),
      apps: numberFlag(values, "apps", 1, true),
      informers: numberFlag(values, "informers", 0, true),
      restartSeconds: numberFlag(values, "restart-interval", 0),
      watchList: values["watch-list"] === true,
      kubectlSeconds: numberFlag(values, "kubectl-interval", 0),
      plainListSeconds: numberFlag(values, "plain-list-interval", 0),
      nodes: numberFlag(values, "nodes", 0, true),
      kubeletSeconds: numberFlag(values, "kubelet-interval", 0),
      configMapsPerNode: numberFlag(values, "configmaps-per-node", 0, true),
      writesPerSecond: numberFlag(values, "writes-per-sec", 0),
      durationSeconds: numberFlag(values, "duration", sample),
      sampleSeconds: sample,
      seed: common.seed,
      sampleHeap: common.sampleHeap,
      progress: common.progress,
      ...(log !== undefined && {
        log: (v: KubeVersion, line: string) => {
          const l = lines.get(v) ?? [];
          if (l.length === 0) lines.set(v, l);
          l.push(line);
        },
      }),
    });
    if (log !== undefined)
      for (const v of versions) {
        const file = logFileFor(log, v, versions);
        const ls = lines.get(v) ?? [];
        writeFileSync(file, ls.length === 0 ? "" : `${ls.join("\n")}\n`);
        common.progress(`wrote ${file} (${ls.length} lines; informer analyze-logs ${file})`);
      }
    return report;
  },
};
