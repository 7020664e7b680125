// The backend the interop servers use: the real engine behind its HTTP adapter, on real time.
import { SimApiServer } from "../../packages/sim-apiserver/src/engine/sim-apiserver.js";
import { EngineBackend } from "../../packages/sim-apiserver/src/http/engine-backend.js";

/** A fresh engine (real time, v1.34 defaults) behind the HTTP adapter; `.engine` reaches it directly. */
export function createTestBackend(): EngineBackend {
  return new EngineBackend(new SimApiServer());
}
