import {
  isQualifiedName,
  isValidLabelValue,
  maxLenError,
  nameIsDNSLabel,
  nameIsDNSSubdomain,
  regexError,
} from "@informer-ts/apimachinery";
import { parseURL } from "./url.js";

/**
 * The named string formats of Kubernetes' CEL `format` library (apiserver/pkg/cel/library/format.go,
 * `ConstantFormats`): `format.<name>()` and `format.named("<name>")`, and `<Format>.validate(s)` returning
 * upstream's error texts. `maxRegexSize` is upstream's size estimate of each format's check (30, 60, 40 as
 * format.go sets them; for `uri`, `uuid`, `byte`, `date` and `datetime`, which upstream sizes by the length of a
 * govalidator/strfmt pattern, 128 — the size upstream's estimate of `format.named(…).value().validate("my-name")`,
 * 34, implies for the largest).
 *
 * Differences: `uri` accepts what the `url` library's parser does (Go's `url.ParseRequestURI` has finer checks).
 */
export interface NamedFormat {
  readonly name: string;
  readonly maxRegexSize: number;
  readonly validate: (s: string) => string[];
}

const DNS1035_FMT = "[a-z]([-a-z0-9]*[a-z0-9])?";
const DNS1035_RE = new RegExp(`^${DNS1035_FMT}$`);

/** `validation.IsDNS1035Label` (through `NameIsDNS1035Label`, which lets a prefix end in `-`). */
function dns1035Label(s: string, prefix: boolean): string[] {
  const v = prefix && s.length > 1 && s.endsWith("-") ? `${s.slice(0, -1)}a` : s;
  const errs: string[] = [];
  if (v.length > 63) errs.push(maxLenError(63));
  if (!DNS1035_RE.test(v))
    errs.push(
      regexError(
        "a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character",
        DNS1035_FMT,
        "my-name",
        "abc-123",
      ),
    );
  return errs;
}

const UUID = /^(?:[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}|[0-9a-f]{32})$/i;
const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;
const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;
const DATETIME = /^\d{4}-\d{2}-\d{2}[Tt ]\d{2}:\d{2}:\d{2}(?:\.\d+)?(?:[Zz]|[+-]\d{2}:\d{2})$/;

function validDate(s: string): boolean {
  const m = DATE.exec(s);
  if (m === null) return false;
  const d = new Date(Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3])));
  return d.getUTCMonth() === Number(m[2]) - 1 && d.getUTCDate() === Number(m[3]);
}

const check = (ok: boolean, message: string): string[] => (ok ? [] : [message]);

export const NAMED_FORMATS: Readonly<Record<string, NamedFormat>> = {
  dns1123Label: { name: "DNS1123Label", maxRegexSize: 30, validate: (s) => nameIsDNSLabel(s, false) },
  dns1123Subdomain: { name: "DNS1123Subdomain", maxRegexSize: 60, validate: (s) => nameIsDNSSubdomain(s, false) },
  dns1035Label: { name: "DNS1035Label", maxRegexSize: 30, validate: (s) => dns1035Label(s, false) },
  qualifiedName: { name: "QualifiedName", maxRegexSize: 60, validate: isQualifiedName },
  dns1123LabelPrefix: { name: "DNS1123LabelPrefix", maxRegexSize: 30, validate: (s) => nameIsDNSLabel(s, true) },
  dns1123SubdomainPrefix: {
    name: "DNS1123SubdomainPrefix",
    maxRegexSize: 60,
    validate: (s) => nameIsDNSSubdomain(s, true),
  },
  dns1035LabelPrefix: { name: "DNS1035LabelPrefix", maxRegexSize: 30, validate: (s) => dns1035Label(s, true) },
  labelValue: { name: "LabelValue", maxRegexSize: 40, validate: isValidLabelValue },
  uri: {
    name: "URI",
    maxRegexSize: 128,
    validate: (s) => {
      const u = parseURL(s);
      return u instanceof Error ? [`parse ${JSON.stringify(s)}: invalid URI for request`] : [];
    },
  },
  uuid: { name: "uuid", maxRegexSize: 128, validate: (s) => check(UUID.test(s), "does not match the UUID format") },
  byte: { name: "byte", maxRegexSize: 128, validate: (s) => check(BASE64.test(s), "invalid base64") },
  date: { name: "date", maxRegexSize: 128, validate: (s) => check(validDate(s), "invalid date") },
  datetime: {
    name: "datetime",
    maxRegexSize: 128,
    validate: (s) => check(DATETIME.test(s) && validDate(s.slice(0, 10)), "invalid datetime"),
  },
};

/** The largest `maxRegexSize`: a `validate` whose format the estimator cannot see is costed with it. */
export const MAX_FORMAT_REGEX_SIZE = Math.max(...Object.values(NAMED_FORMATS).map((f) => f.maxRegexSize));
