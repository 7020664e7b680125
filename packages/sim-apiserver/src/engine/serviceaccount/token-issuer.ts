import {
  createHash,
  createPrivateKey,
  createPublicKey,
  generateKeyPairSync,
  type KeyObject,
  sign,
  verify,
} from "node:crypto";
import type { Clock, Rand } from "@informer-ts/clock";
import { newUid } from "../object-util.js";
import { type JsonWebKey, jsonWebKeySet, openIdConfiguration } from "./issuer-discovery.js";

/** The issuer and default audience of the simulator's tokens (kube-apiserver's `--service-account-issuer` default). */
export const SERVICE_ACCOUNT_ISSUER = "https://kubernetes.default.svc.cluster.local";

/** An object a token is bound to (`kubernetes.io.pod`, `.secret`, `.node` of the claims). */
export interface BoundObject {
  readonly name: string;
  readonly uid: string;
}

/** What a token says (upstream's `privateClaims` plus the registered JWT claims). */
export interface ServiceAccountClaims {
  readonly iss: string;
  readonly sub: string;
  readonly aud: readonly string[];
  readonly exp: number;
  readonly iat: number;
  readonly nbf: number;
  readonly jti: string;
  readonly "kubernetes.io": {
    readonly namespace: string;
    readonly serviceaccount: BoundObject;
    readonly pod?: BoundObject;
    readonly secret?: BoundObject;
    readonly node?: BoundObject;
    /** Seconds since the epoch after which the token counts as stale (an extended projected token). */
    readonly warnafter?: number;
  };
}

/** What a token is asked for. */
export interface TokenGrant {
  readonly namespace: string;
  readonly serviceAccount: BoundObject;
  readonly audiences: readonly string[];
  readonly expirationSeconds: number;
  /** Issued at this time (ms since the epoch; default the clock's now). */
  readonly issuedAtMs?: number;
  readonly pod?: BoundObject;
  readonly secret?: BoundObject;
  readonly node?: BoundObject;
  /** `warnafter` for an extended token. */
  readonly warnAfterSeconds?: number;
}

/** The result of {@link ServiceAccountTokenIssuer.verify}. */
export type TokenVerdict =
  | { readonly ok: true; readonly claims: ServiceAccountClaims }
  | { readonly ok: false; readonly error: string };

function b64url(data: Buffer | string): string {
  return Buffer.from(data).toString("base64url");
}

/** A signing key pair and its `kid`. */
export interface SigningKeys {
  readonly privateKey: KeyObject;
  readonly publicKey: KeyObject;
  readonly kid: string;
}

/** One RSA key pair per process, made on first use: making one costs a few hundred ms of CPU. */
let processKeys: SigningKeys | undefined;

function keysOf(privateKey: KeyObject, publicKey: KeyObject): SigningKeys {
  const der = publicKey.export({ type: "spki", format: "der" });
  return { privateKey, publicKey, kid: b64url(createHash("sha256").update(der).digest()) };
}

function signingKeys(): SigningKeys {
  if (processKeys === undefined) {
    const { privateKey, publicKey } = generateKeyPairSync("rsa", { modulusLength: 2048 });
    processKeys = keysOf(privateKey, publicKey);
  }
  return processKeys;
}

/**
 * The signing keys of a PEM RSA private key (kube-apiserver's `--service-account-signing-key-file`). Throws an Error
 * saying what is wrong: not a PEM private key, or not RSA (the simulator signs RS256 only).
 */
export function signingKeysFromPem(pem: string): SigningKeys {
  let privateKey: KeyObject;
  try {
    privateKey = createPrivateKey(pem);
  } catch (err) {
    throw new Error(
      `service-account signing key: not a PEM private key (${err instanceof Error ? err.message : String(err)})`,
    );
  }
  if (privateKey.asymmetricKeyType !== "rsa") {
    throw new Error(
      `service-account signing key: a ${String(privateKey.asymmetricKeyType)} key; only RSA keys (RS256) are supported`,
    );
  }
  return keysOf(privateKey, createPublicKey(privateKey));
}

/**
 * Signs and verifies service-account JWTs as kube-apiserver's token generator and validator do
 * (`pkg/serviceaccount/jwt.go`, `pkg/serviceaccount/claims.go`): RS256 over the process's key pair, made on first
 * use (so engines that never issue a token pay nothing, and the engines of one process share it — a token of one
 * engine verifies against another's, yet still names service accounts only that engine has), a `kid` that is the SHA-256 of the public key, upstream's claims shape
 * (`iss`, `sub` = `system:serviceaccount:<ns>:<name>`, `aud`, `exp`/`iat`/`nbf`, `jti`, and the private
 * `kubernetes.io` claim with namespace, service account and bound object). Node's `crypto` does the signing: a JWT is
 * three base64url parts, and a JOSE library would add a dependency for two calls.
 *
 * Verification checks the signature, the issuer, expiry (`exp`, `nbf` on the clock) and that an audience is shared;
 * whether the service account (and bound object) still exist is the caller's part, as upstream's validator looks them
 * up.
 */
export class ServiceAccountTokenIssuer {
  private keys: SigningKeys | undefined;

  /** `keys`: the pair to sign with ({@link signingKeysFromPem}); default the process's, made on first use. */
  constructor(
    private readonly clock: Clock,
    private readonly rand: Rand,
    readonly issuer: string = SERVICE_ACCOUNT_ISSUER,
    keys?: SigningKeys,
  ) {
    this.keys = keys;
  }

  private keyPair() {
    this.keys ??= signingKeys();
    return this.keys;
  }

  /** The public key tokens are signed with, as PEM (what `/openid/v1/jwks` would publish). */
  publicKeyPem(): string {
    return this.keyPair().publicKey.export({ type: "spki", format: "pem" }).toString();
  }

  /** The key set `/openid/v1/jwks` publishes: the one public key, with the `kid` of the tokens' header. */
  jwks(): { readonly keys: readonly JsonWebKey[] } {
    const { publicKey, kid } = this.keyPair();
    return jsonWebKeySet(publicKey, kid);
  }

  /** The OpenID provider configuration of this issuer, its keys at `jwksUri`. */
  openIdConfiguration(jwksUri: string): Record<string, unknown> {
    return openIdConfiguration(this.issuer, jwksUri);
  }

  /** A signed token for `g`, and its claims. */
  issue(g: TokenGrant): { readonly token: string; readonly claims: ServiceAccountClaims } {
    const { privateKey, kid } = this.keyPair();
    const iat = Math.floor((g.issuedAtMs ?? this.clock.now()) / 1000);
    const claims: ServiceAccountClaims = {
      aud: [...g.audiences],
      exp: iat + g.expirationSeconds,
      iat,
      iss: this.issuer,
      jti: newUid(this.rand),
      "kubernetes.io": {
        namespace: g.namespace,
        ...(g.node !== undefined && { node: { name: g.node.name, uid: g.node.uid } }),
        ...(g.pod !== undefined && { pod: { name: g.pod.name, uid: g.pod.uid } }),
        ...(g.secret !== undefined && { secret: { name: g.secret.name, uid: g.secret.uid } }),
        serviceaccount: { name: g.serviceAccount.name, uid: g.serviceAccount.uid },
        ...(g.warnAfterSeconds !== undefined && { warnafter: iat + g.warnAfterSeconds }),
      },
      nbf: iat,
      sub: `system:serviceaccount:${g.namespace}:${g.serviceAccount.name}`,
    };
    const signingInput = `${b64url(JSON.stringify({ alg: "RS256", kid }))}.${b64url(JSON.stringify(claims))}`;
    const signature = sign("sha256", Buffer.from(signingInput), privateKey);
    return { token: `${signingInput}.${b64url(signature)}`, claims };
  }

  /**
   * Checks a token against `audiences` (empty: the issuer). Never throws: a malformed, foreign, expired or
   * wrong-audience token is `{ ok: false, error }` with the reason.
   */
  verify(token: string, audiences: readonly string[]): TokenVerdict {
    const parts = token.split(".");
    if (parts.length !== 3) return { ok: false, error: "token is not a JWT (want three dot-separated parts)" };
    if (this.keys === undefined) return { ok: false, error: "token was not issued by this server" };
    let claims: ServiceAccountClaims;
    try {
      const header = JSON.parse(Buffer.from(parts[0]!, "base64url").toString("utf8")) as { alg?: unknown };
      if (header.alg !== "RS256") return { ok: false, error: `unsupported signing algorithm ${String(header.alg)}` };
      claims = JSON.parse(Buffer.from(parts[1]!, "base64url").toString("utf8")) as ServiceAccountClaims;
    } catch {
      return { ok: false, error: "token is not a JWT (a part is not base64url JSON)" };
    }
    const signed = verify(
      "sha256",
      Buffer.from(`${parts[0]}.${parts[1]}`),
      this.keys.publicKey,
      Buffer.from(parts[2]!, "base64url"),
    );
    if (!signed) return { ok: false, error: "invalid signature" };
    if (claims.iss !== this.issuer) return { ok: false, error: `token issuer ${claims.iss} is not ${this.issuer}` };
    const now = Math.floor(this.clock.now() / 1000);
    if (typeof claims.exp !== "number" || now > claims.exp) return { ok: false, error: "token has expired" };
    if (typeof claims.nbf === "number" && now < claims.nbf) return { ok: false, error: "token is not valid yet" };
    const wanted = audiences.length === 0 ? [this.issuer] : audiences;
    if (!Array.isArray(claims.aud) || !claims.aud.some((a) => wanted.includes(a)))
      return { ok: false, error: "token audiences are invalid" };
    if (claims["kubernetes.io"]?.serviceaccount === undefined)
      return { ok: false, error: "token has no kubernetes.io service account claim" };
    return { ok: true, claims };
  }
}
