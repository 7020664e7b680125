import {
  type FieldSelector,
  fieldsEverything,
  type KubeObject,
  type LabelSelector,
  newBadRequest,
  objectFieldSet,
  parseFieldSelector,
  parseLabelSelector,
  SelectorParseError,
  validateFieldSelectorFields,
} from "@informer-ts/apimachinery";
import { fieldLabelsOf, type SimResource } from "./resources.js";

/** A parsed label + field selector for one resource (the registry's `SelectionPredicate`). */
export interface Selection {
  readonly matches: (o: KubeObject) => boolean;
  /** No label and no field requirement: `remainingItemCount` is reported only then. */
  readonly empty: boolean;
  readonly fields: FieldSelector;
  readonly labels: LabelSelector;
}

/**
 * Parses `labelSelector`/`fieldSelector` the way kube-apiserver does for `r`: full label syntax, field selectors on
 * the resource's field labels only.
 *
 * @throws {StatusError} 400 with the parser's message, or `"x" is not a known field selector: …` /
 *   `field label not supported: x`.
 */
export function parseSelection(
  r: SimResource,
  labelSelector: string | undefined,
  fieldSelector: string | undefined,
): Selection {
  let labels: LabelSelector;
  let fields: FieldSelector;
  try {
    labels = parseLabelSelector(labelSelector ?? "");
    fields =
      fieldSelector === undefined || fieldSelector === "" ? fieldsEverything() : parseFieldSelector(fieldSelector);
  } catch (err) {
    if (err instanceof SelectorParseError) throw newBadRequest(err.detail);
    throw err;
  }
  const allowed = fieldLabelsOf(r);
  validateFieldSelectorFields(fields, allowed);
  const extra = allowed.slice(2);
  const labelsEmpty = labels.empty();
  const fieldsEmpty = fields.empty();
  const matches = (o: KubeObject): boolean =>
    (labelsEmpty || labels.matches(o.metadata?.labels)) && (fieldsEmpty || fields.matches(objectFieldSet(o, extra)));
  return { matches, empty: labelsEmpty && fieldsEmpty, fields, labels };
}
