// Throwaway PKI for HTTPS tests: a CA, a serving certificate for 127.0.0.1/localhost and client certificates.
import { generateKeyPairSync, randomBytes } from "node:crypto";
import { createRequire } from "node:module";
import type forgeTypes from "node-forge";

// node-forge is a dependency of sim-apiserver, not of this package: resolve it from there (tests only).
const forge = createRequire(new URL("../../../sim-apiserver/package.json", import.meta.url))(
  "node-forge",
) as typeof forgeTypes;

export interface Pem {
  readonly cert: string;
  readonly key: string;
}

export interface TestPki {
  readonly ca: Pem;
  readonly server: Pem;
  /** Issue a client certificate with this common name (and organization). */
  client(commonName: string, organization?: string): Pem;
}

function keyPair(): { priv: forgeTypes.pki.rsa.PrivateKey; pub: forgeTypes.pki.rsa.PublicKey; pem: string } {
  const { privateKey } = generateKeyPairSync("rsa", { modulusLength: 2048 });
  const pem = privateKey.export({ type: "pkcs8", format: "pem" }).toString();
  const priv = forge.pki.privateKeyFromPem(pem) as forgeTypes.pki.rsa.PrivateKey;
  return { priv, pub: forge.pki.setRsaPublicKey(priv.n, priv.e), pem };
}

function certificate(
  pub: forgeTypes.pki.rsa.PublicKey,
  subject: forgeTypes.pki.CertificateField[],
  issuer: forgeTypes.pki.CertificateField[],
): forgeTypes.pki.Certificate {
  const c = forge.pki.createCertificate();
  c.publicKey = pub;
  const serial = randomBytes(12);
  serial[0] = serial[0]! & 0x7f;
  c.serialNumber = serial.toString("hex");
  // Certificates are checked against the wall clock by TLS; this is test data, not library time.
  const now = Date.now();
  c.validity.notBefore = new Date(now - 3_600_000);
  c.validity.notAfter = new Date(now + 86_400_000);
  c.setSubject(subject);
  c.setIssuer(issuer);
  return c;
}

/** Generates a CA (`CN=<caName>`) with a serving certificate and a client-certificate factory. */
export function generateTestPki(caName = "informer-ts test CA"): TestPki {
  const caKeys = keyPair();
  const caSubject = [{ name: "commonName", value: caName }];
  const ca = certificate(caKeys.pub, caSubject, caSubject);
  ca.setExtensions([
    { name: "basicConstraints", cA: true, critical: true },
    { name: "keyUsage", keyCertSign: true, cRLSign: true, digitalSignature: true, critical: true },
  ]);
  ca.sign(caKeys.priv, forge.md.sha256.create());

  const srvKeys = keyPair();
  const srv = certificate(srvKeys.pub, [{ name: "commonName", value: "test-apiserver" }], caSubject);
  srv.setExtensions([
    { name: "basicConstraints", cA: false },
    { name: "keyUsage", digitalSignature: true, keyEncipherment: true, critical: true },
    { name: "extKeyUsage", serverAuth: true },
    {
      name: "subjectAltName",
      altNames: [
        { type: 2, value: "localhost" },
        { type: 7, ip: "127.0.0.1" },
      ],
    },
  ]);
  srv.sign(caKeys.priv, forge.md.sha256.create());

  return {
    ca: { cert: forge.pki.certificateToPem(ca), key: caKeys.pem },
    server: { cert: forge.pki.certificateToPem(srv), key: srvKeys.pem },
    client(commonName: string, organization?: string): Pem {
      const k = keyPair();
      const subject: forgeTypes.pki.CertificateField[] = [{ name: "commonName", value: commonName }];
      if (organization !== undefined) subject.push({ name: "organizationName", value: organization });
      const c = certificate(k.pub, subject, caSubject);
      c.setExtensions([
        { name: "basicConstraints", cA: false },
        { name: "keyUsage", digitalSignature: true, keyEncipherment: true, critical: true },
        { name: "extKeyUsage", clientAuth: true },
      ]);
      c.sign(caKeys.priv, forge.md.sha256.create());
      return { cert: forge.pki.certificateToPem(c), key: k.pem };
    },
  };
}
