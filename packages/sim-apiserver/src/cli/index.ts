// The `pnpm apiserver` command's wiring: flags, usage, and the engine-backed backend the command serves. Re-exported
// by the package index.
export { type CliBackend, createCliBackend, ENGINE_FAULT_TYPES } from "./cli-backend.js";
export { type ApiserverFlags, parseApiserverFlags, USAGE as APISERVER_USAGE } from "./cli-flags.js";
