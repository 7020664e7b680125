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

/** The selectors of a request after the syntax parse, before the field labels are checked against a resource. */
export interface ParsedSelectors {
  readonly labels: LabelSelector;
  readonly fields: FieldSelector;
}

/**
 * The syntax half of selector handling: what `DecodeParameters` does when it turns the `labelSelector` and
 * `fieldSelector` strings into selectors. It runs before defaulting and validation, so a malformed selector is a 400
 * even when the options would also fail validation (422).
 *
 * @throws {StatusError} 400 with the parser's message.
 */
export function parseSelectors(labelSelector: string | undefined, fieldSelector: string | undefined): ParsedSelectors {
  try {
    return {
      labels: parseLabelSelector(labelSelector ?? ""),
      fields:
        fieldSelector === undefined || fieldSelector === "" ? fieldsEverything() : parseFieldSelector(fieldSelector),
    };
  } catch (err) {
    if (err instanceof SelectorParseError) throw newBadRequest(err.detail);
    throw err;
  }
}

/**
 * The field-label half: the handler's field-label conversion, which runs after validation. Accepts field selectors
 * on `r`'s field labels only and builds the matcher.
 *
 * @throws {StatusError} 400 `"x" is not a known field selector: …` / `field label not supported: x`.
 */
export function selectionFor(r: SimResource, parsed: ParsedSelectors): Selection {
  const { labels, fields } = parsed;
  const allowed = fieldLabelsOf(r);
  validateFieldSelectorFields(fields, allowed);
  const extra = allowed.slice(2);
  const labelsEmpty = labels.empty();
  const fieldsEmpty = fields.empty();
  // Field labels that read another path of the object (core Events' `source` is `source.component`, else
  // `reportingComponent`): the first path with a non-empty value.
  const renamed = Object.entries(r.fieldLabelPaths ?? {}).map(
    ([label, paths]) => [label, typeof paths === "string" ? [paths] : paths] as const,
  );
  const fieldSet =
    renamed.length === 0
      ? (o: KubeObject) => objectFieldSet(o, extra)
      : (o: KubeObject) => {
          const set = objectFieldSet(o, [...extra, ...renamed.flatMap(([, paths]) => paths)]);
          for (const [label, paths] of renamed) set[label] = paths.map((p) => set[p] ?? "").find((v) => v !== "") ?? "";
          return set;
        };
  const matches = (o: KubeObject): boolean =>
    (labelsEmpty || labels.matches(o.metadata?.labels)) && (fieldsEmpty || fields.matches(fieldSet(o)));
  return { matches, empty: labelsEmpty && fieldsEmpty, fields, labels };
}

/**
 * Both halves at once ({@link parseSelectors}, then {@link selectionFor}), for callers without options to validate in
 * between: full label syntax, field selectors on the resource's field labels only.
 *
 * @throws {StatusError} 400 with the parser's message, or `"x" is not a known field selector: …` /
 *   `field label not supported: x`.
 */
export function parseSelection(
  r: SimResource,
  labelSelector: string | undefined,
  fieldSelector: string | undefined,
): Selection {
  return selectionFor(r, parseSelectors(labelSelector, fieldSelector));
}
