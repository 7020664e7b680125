// The studies `informer scenario <name>` runs, by name. Adding a study: its command definition here, its name and
// usage text in cli-usage.ts (which must stay import-free), a row in docs/scenarios.md.
import { apiserverLoadCommand } from "./apiserver-load/apiserver-load-command.js";
import { kubeletConfigMapCommand } from "./kubelet-configmap/kubelet-configmap-command.js";
import { listMemoryCommand } from "./list-memory/list-memory-command.js";
import { statefulSetResyncCommand } from "./statefulset-resync/statefulset-resync-command.js";
import type { ScenarioCommandDefinition } from "./study-command-definition.js";
import { watchRv0ChurnCommand } from "./watch-rv0-churn/watch-rv0-churn-command.js";

/** Every study's command, keyed by its name on the command line (the same names as `SCENARIO_NAMES`). */
export const SCENARIO_COMMANDS: Readonly<Record<string, ScenarioCommandDefinition>> = {
  "statefulset-resync": statefulSetResyncCommand,
  "apiserver-load": apiserverLoadCommand,
  "watch-rv0-churn": watchRv0ChurnCommand,
  "list-memory": listMemoryCommand,
  "kubelet-configmap": kubeletConfigMapCommand,
};
