import type { FieldError, KubeObject } from "@informer-ts/apimachinery";
import { maxLenError, regexError } from "@informer-ts/apimachinery";
import { immutable, objectAt, stringAt } from "./common.js";

/** `core.MaxSecretSize`: the most data a ConfigMap or a Secret may hold (1 MiB). */
export const MAX_SECRET_SIZE = 1024 * 1024;

const CONFIG_MAP_KEY_FMT = "[-._a-zA-Z0-9]+";
const CONFIG_MAP_KEY_RE = /^[-._a-zA-Z0-9]+$/;
const CONFIG_MAP_KEY_MAX_LENGTH = 253;

/**
 * `validation.IsConfigMapKey`: at most 253 characters of `[-._a-zA-Z0-9]`, not `.` or `..`, not starting with `..`
 * (the same rule for ConfigMap `data`/`binaryData` keys and Secret `data` keys).
 */
export function isConfigMapKey(key: string): string[] {
  const errs: string[] = [];
  if (key.length > CONFIG_MAP_KEY_MAX_LENGTH) errs.push(maxLenError(CONFIG_MAP_KEY_MAX_LENGTH));
  if (!CONFIG_MAP_KEY_RE.test(key)) {
    errs.push(
      regexError(
        "a valid config key must consist of alphanumeric characters, '-', '_' or '.'",
        CONFIG_MAP_KEY_FMT,
        "key.name",
        "KEY_NAME",
        "key-name",
      ),
    );
  }
  if (key === ".") errs.push("must not be '.'");
  else if (key === "..") errs.push("must not be '..'");
  else if (key.startsWith("..")) errs.push("must not start with '..'");
  return errs;
}

function keyErrors(data: Record<string, unknown> | undefined, path: string): FieldError[] {
  const errs: FieldError[] = [];
  if (data === undefined) return errs;
  for (const key of Object.keys(data)) {
    for (const detail of isConfigMapKey(key))
      errs.push({ type: "FieldValueInvalid", field: `${path}[${key}]`, badValue: key, detail });
  }
  return errs;
}

/** Bytes of a base64 value once decoded (what a Secret's `data` counts toward its size). */
function decodedLength(b64: string): number {
  const s = b64.replace(/=+$/, "");
  return Math.floor((s.length * 3) / 4);
}

/**
 * `ValidateConfigMap` without ObjectMeta: `data` and `binaryData` keys are config keys (`data[a b]: Invalid value:
 * "a b": a valid config key must consist of …`), no key in both (`duplicate of key present in binaryData`), and at
 * most 1 MiB of keys and values together (`: Too long: may not be more than 1048576 bytes`).
 */
export function validateConfigMap(cm: KubeObject): FieldError[] {
  const data = objectAt(cm.data);
  const binary = objectAt(cm.binaryData);
  const errs = [...keyErrors(data, "data"), ...keyErrors(binary, "binaryData")];
  let size = 0;
  for (const [k, v] of Object.entries(data ?? {})) {
    size += k.length + Buffer.byteLength(stringAt(v));
    if (binary !== undefined && k in binary) {
      errs.push({
        type: "FieldValueInvalid",
        field: `data[${k}]`,
        badValue: k,
        detail: "duplicate of key present in binaryData",
      });
    }
  }
  for (const [k, v] of Object.entries(binary ?? {})) size += k.length + decodedLength(stringAt(v));
  if (size > MAX_SECRET_SIZE) {
    errs.push({ type: "FieldValueTooLong", field: "", detail: `may not be more than ${MAX_SECRET_SIZE} bytes` });
  }
  return errs;
}

function immutableData(obj: KubeObject, old: KubeObject, fields: readonly string[]): FieldError[] {
  const errs: FieldError[] = [];
  if ((old as { immutable?: unknown }).immutable !== true) return errs;
  const detail = "field is immutable when `immutable` is set";
  if ((obj as { immutable?: unknown }).immutable !== true)
    errs.push({ type: "FieldValueForbidden", field: "immutable", detail });
  for (const f of fields) {
    if (JSON.stringify(obj[f] ?? null) !== JSON.stringify(old[f] ?? null))
      errs.push({ type: "FieldValueForbidden", field: f, detail });
  }
  return errs;
}

/**
 * `ValidateConfigMapUpdate` without ObjectMeta: once `immutable: true`, neither the flag (`immutable: Forbidden:
 * field is immutable when `immutable` is set`) nor `data`/`binaryData` may change; plus {@link validateConfigMap}.
 */
export function validateConfigMapUpdate(cm: KubeObject, old: KubeObject): FieldError[] {
  return [...immutableData(cm, old, ["data", "binaryData"]), ...validateConfigMap(cm)];
}

/**
 * `ValidateSecret` without ObjectMeta: `data` keys are config keys, at most 1 MiB of decoded data (`data: Too long:
 * may not be more than 1048576 bytes`); the `kubernetes.io/dockerconfigjson`, `…/basic-auth`, `…/ssh-auth` and
 * `…/tls` types need their keys.
 */
export function validateSecret(secret: KubeObject): FieldError[] {
  const data = objectAt(secret.data) ?? {};
  const errs = keyErrors(data, "data");
  let size = 0;
  for (const [k, v] of Object.entries(data)) size += k.length + decodedLength(stringAt(v));
  if (size > MAX_SECRET_SIZE) {
    errs.push({ type: "FieldValueTooLong", field: "data", detail: `may not be more than ${MAX_SECRET_SIZE} bytes` });
  }
  const type = stringAt((secret as { type?: unknown }).type);
  const required: Record<string, readonly string[]> = {
    "kubernetes.io/dockerconfigjson": [".dockerconfigjson"],
    "kubernetes.io/dockercfg": [".dockercfg"],
    "kubernetes.io/ssh-auth": ["ssh-privatekey"],
    "kubernetes.io/tls": ["tls.crt", "tls.key"],
  };
  for (const key of required[type] ?? []) {
    if (!(key in data)) errs.push({ type: "FieldValueRequired", field: `data[${key}]` });
  }
  return errs;
}

/**
 * `ValidateSecretUpdate` without ObjectMeta: `type` is immutable (`type: Invalid value: "x": field is immutable`),
 * and once `immutable: true` neither the flag nor `data` may change; plus {@link validateSecret}.
 */
export function validateSecretUpdate(secret: KubeObject, old: KubeObject): FieldError[] {
  const type = stringAt((secret as { type?: unknown }).type);
  return [
    ...immutable(type, stringAt((old as { type?: unknown }).type), "type", type),
    ...immutableData(secret, old, ["data"]),
    ...validateSecret(secret),
  ];
}
