import { generateKeyPairSync, randomBytes } from "node:crypto";
import { createRequire } from "node:module";
import { realClock } from "@informer-ts/clock";
import type forgeTypes from "node-forge";

let forgeModule: typeof forgeTypes | undefined;
/**
 * node-forge, loaded on the first certificate made: most users of the HTTP server never serve TLS, and loading it
 * costs about 100 ms (every process and test file that imports the server would pay it).
 */
function forge(): typeof forgeTypes {
  forgeModule ??= createRequire(import.meta.url)("node-forge") as typeof forgeTypes;
  return forgeModule;
}

/** A PEM certificate with its PEM private key (PKCS#8). */
export interface CertKeyPair {
  readonly cert: string;
  readonly key: string;
}

/**
 * What an HTTPS simulated apiserver needs: a self-signed CA, a serving certificate signed by it for `127.0.0.1`
 * and `localhost`, and a client certificate signed by it (`CN=sim-admin`, `O=system:masters`) for client-cert
 * authentication. All PEM.
 */
export interface SimPki {
  readonly ca: CertKeyPair;
  readonly serving: CertKeyPair;
  readonly client: CertKeyPair;
}

/** Options of {@link generatePki}. */
export interface GeneratePkiOptions {
  /** Extra DNS names for the serving certificate (always includes `localhost`). */
  readonly dnsNames?: readonly string[];
  /** Extra IP addresses for the serving certificate (always includes `127.0.0.1` and `::1`). */
  readonly ipAddresses?: readonly string[];
  /** Certificate validity start, ms since the epoch (default: the moment of the call minus one hour). */
  readonly notBefore?: number;
  /** Validity in days (default 365). */
  readonly validityDays?: number;
  /** RSA modulus length (default 2048). */
  readonly keyBits?: number;
}

function rsaKeyPair(bits: number): {
  privateKey: forgeTypes.pki.rsa.PrivateKey;
  publicKey: forgeTypes.pki.rsa.PublicKey;
  pem: string;
} {
  // Node's native key generation takes milliseconds; node-forge's pure-JS one takes seconds.
  const { privateKey } = generateKeyPairSync("rsa", { modulusLength: bits });
  const pem = privateKey.export({ type: "pkcs8", format: "pem" }).toString();
  const forgeKey = forge().pki.privateKeyFromPem(pem) as forgeTypes.pki.rsa.PrivateKey;
  const publicKey = forge().pki.setRsaPublicKey(forgeKey.n, forgeKey.e);
  return { privateKey: forgeKey, publicKey, pem };
}

function serial(): string {
  // A positive 16-byte serial (top bit cleared so DER does not read it as negative).
  const b = randomBytes(16);
  b[0] = b[0]! & 0x7f;
  return b.toString("hex");
}

function newCert(
  publicKey: forgeTypes.pki.rsa.PublicKey,
  subject: forgeTypes.pki.CertificateField[],
  notBefore: number,
  days: number,
): forgeTypes.pki.Certificate {
  const cert = forge().pki.createCertificate();
  cert.publicKey = publicKey;
  cert.serialNumber = serial();
  cert.validity.notBefore = new Date(notBefore);
  cert.validity.notAfter = new Date(notBefore + days * 86_400_000);
  cert.setSubject(subject);
  return cert;
}

/**
 * Generates a fresh {@link SimPki}. Keys are RSA (Go, OpenSSL and Node accept them everywhere); certificates are
 * X.509 v3 with SHA-256 signatures. Takes well under a second.
 */
export function generatePki(options: GeneratePkiOptions = {}): SimPki {
  const bits = options.keyBits ?? 2048;
  const days = options.validityDays ?? 365;
  // Certificates are wall-clock artefacts checked by other processes; backdate an hour for clock skew.
  const notBefore = options.notBefore ?? realClock.now() - 3_600_000;

  const caKeys = rsaKeyPair(bits);
  const caSubject = [{ name: "commonName", value: "informer-ts sim-apiserver CA" }];
  const ca = newCert(caKeys.publicKey, caSubject, notBefore, days);
  ca.setIssuer(caSubject);
  ca.setExtensions([
    { name: "basicConstraints", cA: true, critical: true },
    { name: "keyUsage", keyCertSign: true, cRLSign: true, digitalSignature: true, critical: true },
    { name: "subjectKeyIdentifier" },
  ]);
  ca.sign(caKeys.privateKey, forge().md.sha256.create());

  const dns = ["localhost", ...(options.dnsNames ?? [])];
  const ips = ["127.0.0.1", "::1", ...(options.ipAddresses ?? [])];
  const servingKeys = rsaKeyPair(bits);
  const serving = newCert(servingKeys.publicKey, [{ name: "commonName", value: "sim-apiserver" }], notBefore, days);
  serving.setIssuer(caSubject);
  serving.setExtensions([
    { name: "basicConstraints", cA: false },
    { name: "keyUsage", digitalSignature: true, keyEncipherment: true, critical: true },
    { name: "extKeyUsage", serverAuth: true },
    {
      name: "subjectAltName",
      altNames: [...dns.map((value) => ({ type: 2, value })), ...ips.map((ip) => ({ type: 7, ip }))],
    },
  ]);
  serving.sign(caKeys.privateKey, forge().md.sha256.create());

  const clientKeys = rsaKeyPair(bits);
  const client = newCert(
    clientKeys.publicKey,
    [
      { name: "commonName", value: "sim-admin" },
      { name: "organizationName", value: "system:masters" },
    ],
    notBefore,
    days,
  );
  client.setIssuer(caSubject);
  client.setExtensions([
    { name: "basicConstraints", cA: false },
    { name: "keyUsage", digitalSignature: true, keyEncipherment: true, critical: true },
    { name: "extKeyUsage", clientAuth: true },
  ]);
  client.sign(caKeys.privateKey, forge().md.sha256.create());

  return {
    ca: { cert: forge().pki.certificateToPem(ca), key: caKeys.pem },
    serving: { cert: forge().pki.certificateToPem(serving), key: servingKeys.pem },
    client: { cert: forge().pki.certificateToPem(client), key: clientKeys.pem },
  };
}
