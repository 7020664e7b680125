// The backend the interop servers use. Today: the HTTP package's in-memory test backend (configmaps only).
// TODO(lead): switch to the engine (`engineBackend(new SimApiServer(...))`) once both are wired in index.ts.
import type { ApiBackend } from "../../packages/sim-apiserver/src/http/backend.js";
import { MemoryBackend } from "../../packages/sim-apiserver/src/http/memory-backend.js";

export function createTestBackend(): ApiBackend {
  return new MemoryBackend();
}
