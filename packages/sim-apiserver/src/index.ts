// Public surface of @informer-ts/sim-apiserver: the engine (in-process, any Clock) and its HTTP(S) face.
export * from "./engine/index.js";
export * from "./http/index.js";
