import type { KeyObject } from "node:crypto";

/** Where kube-apiserver serves the OpenID provider configuration of its service-account issuer. */
export const OPENID_CONFIGURATION_PATH = "/.well-known/openid-configuration";
/** Where it serves the issuer's public keys (`serviceaccount.JWKSPath`). */
export const JWKS_PATH = "/openid/v1/jwks";
/** `Cache-Control` of both documents (upstream caches them for an hour). */
export const ISSUER_DISCOVERY_CACHE_CONTROL = "public, max-age=3600";

/** The `jwks_uri` of a server at `baseUrl` (`https://host:port`, no trailing slash). */
export function jwksUriFor(baseUrl: string): string {
  return `${baseUrl.replace(/\/+$/, "")}${JWKS_PATH}`;
}

/** One key of a JSON Web Key Set (RFC 7517), as the discovery endpoint publishes an RSA signing key. */
export type JsonWebKey = {
  readonly use: "sig";
  readonly kty: string;
  readonly kid: string;
  readonly alg: "RS256";
  readonly n: string;
  readonly e: string;
};

/**
 * The OpenID provider metadata of the service-account issuer (`pkg/serviceaccount/openidmetadata.go`): just enough
 * of OIDC discovery for a relying party to find the keys that verify the issuer's tokens — `id_token` responses,
 * `public` subjects, RS256 signatures.
 */
export function openIdConfiguration(issuer: string, jwksUri: string): Record<string, unknown> {
  return {
    issuer,
    jwks_uri: jwksUri,
    response_types_supported: ["id_token"],
    subject_types_supported: ["public"],
    id_token_signing_alg_values_supported: ["RS256"],
  };
}

/** The key set of `/openid/v1/jwks`: the public signing key as a JWK, with the `kid` tokens carry in their header. */
export function jsonWebKeySet(publicKey: KeyObject, kid: string): { readonly keys: readonly JsonWebKey[] } {
  const jwk = publicKey.export({ format: "jwk" });
  return {
    keys: [{ use: "sig", kty: String(jwk.kty), kid, alg: "RS256", n: String(jwk.n), e: String(jwk.e) }],
  };
}
