import type { KubeObject, MetaV1LabelSelector } from "@informer-ts/apimachinery";
import type { SimResource } from "../../resources.js";
import type { MvccStorage } from "../../storage/index.js";
import { type Program, programOf } from "../cel/validation.js";
import type { NamedRule } from "../policy/policy-matching.js";

const GROUP = "admissionregistration.k8s.io";
/** The two configuration resources the plugins read. */
export const VALIDATING_CONFIGURATIONS = "validatingwebhookconfigurations";
export const MUTATING_CONFIGURATIONS = "mutatingwebhookconfigurations";

/** `clientConfig` of a webhook: a URL, or a Service in the cluster. */
export interface WebhookClientConfig {
  readonly url?: string;
  readonly service?: {
    readonly namespace: string;
    readonly name: string;
    readonly path?: string;
    readonly port: number;
  };
  /** PEM text of the CA bundle (decoded from the API's base64), if any. */
  readonly caBundle?: string;
}

/** A compiled `matchConditions` entry: its plan, or the plan's error. */
export interface CompiledCondition {
  readonly name: string;
  readonly expression: string;
  readonly program: Program | Error;
}

/** One webhook of a configuration, with the API's defaults applied (`admissionregistration/v1` defaults). */
export interface Webhook {
  /** `validating` or `mutating`. */
  readonly type: "validating" | "mutating";
  /** The configuration's name. */
  readonly configuration: string;
  /** The webhook's `name` (`<x>.<domain>`). */
  readonly name: string;
  readonly rules: readonly NamedRule[];
  /** `Fail` (default) or `Ignore`. */
  readonly failurePolicy: string;
  /** `Equivalent` (default) or `Exact`. */
  readonly matchPolicy: string;
  readonly namespaceSelector?: MetaV1LabelSelector;
  readonly objectSelector?: MetaV1LabelSelector;
  /** `None`, `NoneOnDryRun`, `Some`, `Unknown`. */
  readonly sideEffects: string;
  /** Default 10, at most 30. */
  readonly timeoutSeconds: number;
  readonly admissionReviewVersions: readonly string[];
  /** Mutating only: `Never` (default) or `IfNeeded`. */
  readonly reinvocationPolicy: string;
  readonly clientConfig: WebhookClientConfig;
  readonly matchConditions: readonly CompiledCondition[];
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

function strings(v: unknown): string[] | undefined {
  return Array.isArray(v) ? v.filter((s): s is string => typeof s === "string") : undefined;
}

function str(v: unknown, fallback: string): string {
  return typeof v === "string" && v !== "" ? v : fallback;
}

function rulesOf(v: unknown): NamedRule[] {
  if (!Array.isArray(v)) return [];
  return v.filter(isObject).map((r) => {
    const rule: { -readonly [K in keyof NamedRule]: NamedRule[K] } = {};
    const ops = strings(r.operations);
    if (ops !== undefined) rule.operations = ops;
    const groups = strings(r.apiGroups);
    if (groups !== undefined) rule.apiGroups = groups;
    const versions = strings(r.apiVersions);
    if (versions !== undefined) rule.apiVersions = versions;
    const resources = strings(r.resources);
    if (resources !== undefined) rule.resources = resources;
    rule.scope = str(r.scope, "*");
    return rule;
  });
}

function clientConfigOf(v: unknown): WebhookClientConfig {
  if (!isObject(v)) return {};
  const cfg: { -readonly [K in keyof WebhookClientConfig]: WebhookClientConfig[K] } = {};
  if (typeof v.url === "string") cfg.url = v.url;
  if (isObject(v.service)) {
    const s = v.service;
    cfg.service = {
      namespace: String(s.namespace ?? ""),
      name: String(s.name ?? ""),
      ...(typeof s.path === "string" && { path: s.path }),
      port: typeof s.port === "number" ? s.port : 443,
    };
  }
  if (typeof v.caBundle === "string" && v.caBundle !== "")
    cfg.caBundle = Buffer.from(v.caBundle, "base64").toString("utf8");
  return cfg;
}

/** Plans each `matchConditions` expression (an invalid one keeps its error; creation validation rejects those). */
export function compileConditions(v: unknown): CompiledCondition[] {
  if (!Array.isArray(v)) return [];
  return v.filter(isObject).map((c) => {
    const expression = String(c.expression ?? "");
    return { name: String(c.name ?? ""), expression, program: programOf(expression) };
  });
}

/** The webhooks of one stored configuration, in their order, with the API's defaults. */
export function webhooksOf(type: "validating" | "mutating", config: KubeObject): Webhook[] {
  const list = (config as { webhooks?: unknown }).webhooks;
  if (!Array.isArray(list)) return [];
  const configuration = config.metadata?.name ?? "";
  return list.filter(isObject).map((w) => ({
    type,
    configuration,
    name: String(w.name ?? ""),
    rules: rulesOf(w.rules),
    failurePolicy: str(w.failurePolicy, "Fail"),
    matchPolicy: str(w.matchPolicy, "Equivalent"),
    ...(isObject(w.namespaceSelector) && { namespaceSelector: w.namespaceSelector as MetaV1LabelSelector }),
    ...(isObject(w.objectSelector) && { objectSelector: w.objectSelector as MetaV1LabelSelector }),
    sideEffects: str(w.sideEffects, "Unknown"),
    timeoutSeconds: typeof w.timeoutSeconds === "number" ? w.timeoutSeconds : 10,
    admissionReviewVersions: strings(w.admissionReviewVersions) ?? ["v1"],
    reinvocationPolicy: str(w.reinvocationPolicy, "Never"),
    clientConfig: clientConfigOf(w.clientConfig),
    matchConditions: compileConditions(w.matchConditions),
  }));
}

/** Settings of {@link WebhookSource}. */
export interface WebhookSourceOptions {
  readonly storage: MvccStorage;
  readonly resources: () => readonly SimResource[];
}

/**
 * The webhooks of the stored configurations (apiserver's `configuration.NewValidatingWebhookConfigurationManager`
 * and its mutating twin): rebuilt on the first request after any storage event of either resource, so a
 * configuration is in force as soon as its write returns (upstream's informer lags a little). Configurations are
 * taken in name order, their webhooks in the order listed.
 */
export class WebhookSource {
  private cache: { validating: Webhook[]; mutating: Webhook[] } | undefined;
  private unsubscribe: (() => void) | undefined;

  constructor(private readonly opts: WebhookSourceOptions) {}

  stop(): void {
    this.unsubscribe?.();
    this.unsubscribe = undefined;
    this.cache = undefined;
  }

  private resource(resource: string): SimResource | undefined {
    return this.opts.resources().find((r) => r.group === GROUP && r.resource === resource && r.storedAs === undefined);
  }

  private load(type: "validating" | "mutating", resource: string): Webhook[] {
    const r = this.resource(resource);
    if (r === undefined) return [];
    const configs = [...this.opts.storage.snapshot(r)].map(([, o]) => o);
    configs.sort((a, b) => ((a.metadata?.name ?? "") < (b.metadata?.name ?? "") ? -1 : 1));
    return configs.flatMap((c) => webhooksOf(type, c));
  }

  /** The current webhooks of both kinds. */
  current(): { readonly validating: readonly Webhook[]; readonly mutating: readonly Webhook[] } {
    if (this.cache !== undefined) return this.cache;
    this.unsubscribe ??= this.opts.storage.subscribe({
      onEvent: (ev) => {
        if (
          ev.resource.group === GROUP &&
          (ev.resource.resource === VALIDATING_CONFIGURATIONS || ev.resource.resource === MUTATING_CONFIGURATIONS)
        )
          this.cache = undefined;
      },
    });
    this.cache = {
      validating: this.load("validating", VALIDATING_CONFIGURATIONS),
      mutating: this.load("mutating", MUTATING_CONFIGURATIONS),
    };
    return this.cache;
  }
}
