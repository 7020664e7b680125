// The backend the interop servers use: the real engine behind its HTTP adapter, on real time.
import { SimApiServer } from "../../packages/sim-apiserver/src/engine/sim-apiserver.js";
import type { ApiBackend } from "../../packages/sim-apiserver/src/http/backend.js";
import { EngineBackend } from "../../packages/sim-apiserver/src/http/engine-backend.js";

export function createTestBackend(): ApiBackend {
  return new EngineBackend(new SimApiServer());
}
