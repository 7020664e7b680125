// A custom resource for tests: namespaced `widgets.example.com/v1` (short name `wg`), registered on an engine with
// `engine.register(WIDGETS)`.

import type { SimResource } from "./resources.js";
import { DEFAULT_VERBS } from "./served-resource.js";

export const WIDGETS: SimResource = Object.freeze({
  group: "example.com",
  version: "v1",
  resource: "widgets",
  kind: "Widget",
  singularName: "widget",
  namespaced: true,
  shortNames: ["wg"],
  verbs: DEFAULT_VERBS,
  custom: true,
});
