import { readFileSync } from "node:fs";
import { parse as parseYaml } from "yaml";
import { ALL_CLUSTER_CONTROLLERS, type ClusterControllerName } from "../cluster.js";
import { type Stage, validateStages } from "../kubelet/stage.js";

/** The parsed command line of `sim-cluster`. */
export interface ClusterFlags {
  readonly kubeconfig?: string;
  readonly nodes: number;
  readonly stagesFile?: string;
  readonly controllers: readonly ClusterControllerName[];
  readonly seed: number;
  readonly events: boolean;
}

/**
 * Parses `sim-cluster`'s flags (`--flag value` or `--flag=value`). Throws an `Error` naming the flag and the bad value
 * (`--nodes: must be an integer ≥ 0, got "x"`; `--controllers: unknown controller "foo" (known: …)`; an unknown flag).
 */
export function parseClusterFlags(argv: readonly string[]): ClusterFlags {
  let kubeconfig: string | undefined;
  let nodes = 3;
  let stagesFile: string | undefined;
  let controllers: readonly ClusterControllerName[] = ALL_CLUSTER_CONTROLLERS;
  let seed = 1;
  let events = true;
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    const eq = arg.indexOf("=");
    const name = eq > 0 ? arg.slice(0, eq) : arg;
    const value = (): string => {
      if (eq > 0) return arg.slice(eq + 1);
      const v = argv[++i];
      if (v === undefined) throw new Error(`${name}: needs a value`);
      return v;
    };
    const int = (v: string): number => {
      if (!/^\d+$/.test(v)) throw new Error(`${name}: must be an integer ≥ 0, got ${JSON.stringify(v)}`);
      return Number(v);
    };
    switch (name) {
      case "--kubeconfig":
        kubeconfig = value();
        break;
      case "--nodes":
        nodes = int(value());
        break;
      case "--stages":
        stagesFile = value();
        break;
      case "--seed":
        seed = int(value());
        break;
      case "--no-events":
        events = false;
        break;
      case "--controllers": {
        const list = value()
          .split(",")
          .map((s) => s.trim())
          .filter((s) => s !== "");
        for (const c of list) {
          if (!ALL_CLUSTER_CONTROLLERS.includes(c as ClusterControllerName)) {
            throw new Error(
              `--controllers: unknown controller ${JSON.stringify(c)} (known: ${ALL_CLUSTER_CONTROLLERS.join(", ")})`,
            );
          }
        }
        controllers = list as ClusterControllerName[];
        break;
      }
      default:
        throw new Error(`unknown flag ${JSON.stringify(arg)}`);
    }
  }
  return {
    ...(kubeconfig !== undefined && { kubeconfig }),
    nodes,
    ...(stagesFile !== undefined && { stagesFile }),
    controllers,
    seed,
    events,
  };
}

/**
 * Reads a stages file: JSON or YAML, a list of stages or an object with a `stages` list, validated with
 * `validateStages`. Throws an `Error` naming the file and the problem.
 */
export function loadStagesFile(path: string): readonly Stage[] {
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch (err) {
    throw new Error(`--stages: cannot read ${path}: ${err instanceof Error ? err.message : String(err)}`);
  }
  let data: unknown;
  try {
    data = parseYaml(text);
  } catch (err) {
    throw new Error(`--stages: ${path} is neither JSON nor YAML: ${err instanceof Error ? err.message : String(err)}`);
  }
  const list = Array.isArray(data) ? data : (data as { stages?: unknown } | null)?.stages;
  try {
    return validateStages(list);
  } catch (err) {
    throw new Error(`--stages: ${path}: ${err instanceof Error ? err.message : String(err)}`);
  }
}
