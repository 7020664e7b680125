// The engine's verb handlers (kube-apiserver's pkg/endpoints/handlers): list, watch and write serving, the engine's
// request surface and its in-process face. These are the names the other engine folders may use.
export { EngineRequests } from "./engine-requests.js";
export { InProcessRequests } from "./in-process-requests.js";
export { WriteServing } from "./write-serving.js";
