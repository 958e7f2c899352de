import { execFileSync } from 'node:child_process';
import { createPrivateKey, X509Certificate, type JsonWebKey } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

/**
 * Certificates for digital-ID tests, made with OpenSSL as test/helpers/issue-passport.ts makes its CSCA.
 * The project's published test IACA (assets/digital-id) signs the trusted issuers; a fresh CA stands in for
 * an issuer nobody trusts.
 */

const UP = path.resolve(__dirname, '..', '..');
/** The repository, whether this runs from test/helpers (jest) or dist/test/helpers (the benches). */
const REPO = path.basename(UP) === 'dist' ? path.dirname(UP) : UP;
export const TEST_IACA_PEM = readFileSync(path.join(REPO, 'assets/digital-id/test-iaca.pem'), 'utf8');
const TEST_IACA_KEY_PEM = readFileSync(path.join(REPO, 'test/fixtures/digital-id/test-iaca/test-iaca.key.pem'), 'utf8');

export interface CertificateAuthority {
  readonly certificatePem: string;
  readonly keyPem: string;
}

export interface IssuerCredentials {
  readonly certificateDer: Uint8Array;
  readonly privateJwk: JsonWebKey;
  /** The chain a presentation carries, signer first (the root stays out: the verifier has it). */
  readonly chainDer: readonly Uint8Array[];
}

export function projectTestIaca(): CertificateAuthority {
  return { certificatePem: TEST_IACA_PEM, keyPem: TEST_IACA_KEY_PEM };
}

export function pemToDer(pem: string): Uint8Array {
  return new Uint8Array(new X509Certificate(pem).raw);
}

/** A fresh self-signed CA nobody trusts: the "untrusted issuer" of the misbehaving wallet. */
export function freshCertificateAuthority(commonName = 'Unknown Test IACA'): CertificateAuthority {
  return withOpenssl((openssl, at) => {
    openssl('ecparam', '-name', 'prime256v1', '-genkey', '-noout', '-out', 'ca.key');
    openssl('req', '-x509', '-new', '-key', 'ca.key', '-subj', `/C=UT/O=Nobody/CN=${commonName}`, '-days', '3650', '-sha256',
      '-addext', 'basicConstraints=critical,CA:TRUE,pathlen:0', '-addext', 'keyUsage=critical,keyCertSign,cRLSign', '-out', 'ca.pem');
    return { certificatePem: readFileSync(at('ca.pem'), 'utf8'), keyPem: readFileSync(at('ca.key'), 'utf8') };
  });
}

/**
 * A signer under `ca`: an mdoc document signer (EKU id-mdl-kp-mdlDS), an SD-JWT VC issuer or the signer of
 * the issuer's status lists, valid from now for `days`.
 */
export function issueSigner(ca: CertificateAuthority, kind: 'mdoc_document_signer' | 'sd_jwt_vc_issuer' | 'status_list_signer', days = 365, crlUri?: string): IssuerCredentials {
  return withOpenssl((openssl, at) => {
    writeFileSync(at('ca.pem'), ca.certificatePem);
    writeFileSync(at('ca.key'), ca.keyPem);
    const extensions = ['keyUsage=critical,digitalSignature', 'subjectKeyIdentifier=hash', 'authorityKeyIdentifier=keyid'];
    // Where its issuer publishes this certificate's revocation (RFC 5280 4.2.1.13).
    if (crlUri) extensions.push(`crlDistributionPoints=URI:${crlUri}`);
    if (kind === 'mdoc_document_signer') extensions.push('extendedKeyUsage=critical,1.0.18013.5.1.2');
    writeFileSync(at('signer.ext'), extensions.join('\n') + '\n');
    openssl('ecparam', '-name', 'prime256v1', '-genkey', '-noout', '-out', 'signer.key');
    const name = { mdoc_document_signer: 'Test Document Signer', sd_jwt_vc_issuer: 'Test PID Issuer', status_list_signer: 'Test Status List Signer' }[kind];
    openssl('req', '-new', '-key', 'signer.key', '-subj', `/C=UT/O=Test Wallet Issuer/CN=${name}`, '-out', 'signer.csr');
    openssl('x509', '-req', '-in', 'signer.csr', '-CA', 'ca.pem', '-CAkey', 'ca.key', '-CAcreateserial', '-days', String(days), '-sha256',
      '-extfile', 'signer.ext', '-outform', 'DER', '-out', 'signer.der');
    const certificateDer = new Uint8Array(readFileSync(at('signer.der')));
    const privateJwk = createPrivateKey(readFileSync(at('signer.key'), 'utf8')).export({ format: 'jwk' });
    return { certificateDer, privateJwk, chainDer: [certificateDer] };
  });
}

function withOpenssl<T>(work: (openssl: (...args: string[]) => Buffer, at: (file: string) => string) => T): T {
  const dir = mkdtempSync(path.join(tmpdir(), 'digital-id-pki-'));
  const at = (file: string) => path.join(dir, file);
  const openssl = (...args: string[]) => execFileSync('openssl', args, { cwd: dir, stdio: ['ignore', 'pipe', 'pipe'] });
  try {
    return work(openssl, at);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** A CA whose certificate names `crlUri` in its CRL distribution points (an IACA that keeps a CRL, ISO/IEC 18013-5 Annex B). */
export function certificateAuthorityWithCrl(crlUri: string, commonName = 'CRL Test IACA'): CertificateAuthority {
  return withOpenssl((openssl, at) => {
    openssl('ecparam', '-name', 'prime256v1', '-genkey', '-noout', '-out', 'ca.key');
    openssl('req', '-x509', '-new', '-key', 'ca.key', '-subj', `/C=UT/O=Nobody/CN=${commonName}`, '-days', '3650', '-sha256',
      '-addext', 'basicConstraints=critical,CA:TRUE,pathlen:0', '-addext', 'keyUsage=critical,keyCertSign,cRLSign',
      '-addext', `crlDistributionPoints=URI:${crlUri}`, '-out', 'ca.pem');
    return { certificatePem: readFileSync(at('ca.pem'), 'utf8'), keyPem: readFileSync(at('ca.key'), 'utf8') };
  });
}

/**
 * A CRL (DER) signed by `ca` listing `revoked` (certificates it issued), valid from an hour ago for
 * `hours` (negative: already past its nextUpdate). Made with `openssl ca -gencrl` over a hand-written index.
 */
export function issueCrl(ca: CertificateAuthority, revoked: readonly Uint8Array[], hours = 24): Uint8Array {
  return withOpenssl((openssl, at) => {
    writeFileSync(at('ca.pem'), ca.certificatePem);
    writeFileSync(at('ca.key'), ca.keyPem);
    const stamp = (d: Date) => d.toISOString().replace(/[-:T]/g, '').slice(2, 14) + 'Z';
    const lines = revoked.map((der) => {
      const c = new X509Certificate(Buffer.from(der));
      return `R\t${stamp(new Date(c.validTo))}\t${stamp(new Date(Date.now() - 60_000))}\t${c.serialNumber}\tunknown\t/CN=revoked`;
    });
    writeFileSync(at('index.txt'), lines.map((l) => `${l}\n`).join(''));
    writeFileSync(at('crlnumber'), '01\n');
    writeFileSync(
      at('ca.cnf'),
      `[ca]\ndefault_ca = test\n[test]\ndatabase = ${at('index.txt')}\ncrlnumber = ${at('crlnumber')}\ndefault_md = sha256\ncertificate = ${at('ca.pem')}\nprivate_key = ${at('ca.key')}\n`,
    );
    const end = new Date(Date.now() + hours * 3_600_000);
    const start = new Date(Date.now() - 3_600_000);
    const gentime = (d: Date) => d.toISOString().replace(/[-:T]/g, '').slice(0, 14) + 'Z';
    openssl('ca', '-config', 'ca.cnf', '-gencrl', '-crl_lastupdate', gentime(start), '-crl_nextupdate', gentime(hours < 0 ? new Date(start.getTime() + 60_000) : end), '-out', 'crl.pem');
    openssl('crl', '-in', 'crl.pem', '-outform', 'DER', '-out', 'crl.der');
    return new Uint8Array(readFileSync(at('crl.der')));
  });
}

export interface VerifierCredentials {
  /** PEM of the verifier's certificate, then its CA's: what DIGITAL_ID_VERIFIER_CERTIFICATE holds. */
  readonly chainPem: string;
  readonly keyPem: string;
  readonly certificatePem: string;
}

/**
 * A verifier (relying party) certificate under `ca` for signed OpenID4VP requests: an end-entity P-256
 * certificate with `dnsName` as its subjectAltName (the `x509_san_dns:` client identifier), valid for `days`.
 */
export function issueVerifierCertificate(ca: CertificateAuthority, dnsName: string, days = 365): VerifierCredentials {
  return withOpenssl((openssl, at) => {
    writeFileSync(at('ca.pem'), ca.certificatePem);
    writeFileSync(at('ca.key'), ca.keyPem);
    writeFileSync(at('verifier.ext'), ['basicConstraints=critical,CA:FALSE', 'keyUsage=critical,digitalSignature', `subjectAltName=DNS:${dnsName}`, 'subjectKeyIdentifier=hash', 'authorityKeyIdentifier=keyid'].join('\n') + '\n');
    openssl('ecparam', '-name', 'prime256v1', '-genkey', '-noout', '-out', 'verifier.key');
    openssl('pkcs8', '-topk8', '-nocrypt', '-in', 'verifier.key', '-out', 'verifier.pk8');
    openssl('req', '-new', '-key', 'verifier.key', '-subj', `/C=UT/O=Test Verifier/CN=${dnsName}`, '-out', 'verifier.csr');
    openssl('x509', '-req', '-in', 'verifier.csr', '-CA', 'ca.pem', '-CAkey', 'ca.key', '-CAcreateserial', '-days', String(days), '-sha256', '-extfile', 'verifier.ext', '-out', 'verifier.pem');
    const certificatePem = readFileSync(at('verifier.pem'), 'utf8');
    return { certificatePem, chainPem: certificatePem + ca.certificatePem, keyPem: readFileSync(at('verifier.pk8'), 'utf8') };
  });
}

/**
 * An intermediate CA under `ca` (a PID provider's issuing CA under its root, say), its own revocation
 * published at `crlUri` (its CRL distribution point, on the CRL `ca` issues).
 */
export function issueIntermediateCa(ca: CertificateAuthority, crlUri: string, commonName = 'Test Intermediate CA'): CertificateAuthority {
  return withOpenssl((openssl, at) => {
    writeFileSync(at('ca.pem'), ca.certificatePem);
    writeFileSync(at('ca.key'), ca.keyPem);
    writeFileSync(at('sub.ext'), ['basicConstraints=critical,CA:TRUE,pathlen:0', 'keyUsage=critical,keyCertSign,cRLSign', `crlDistributionPoints=URI:${crlUri}`, 'subjectKeyIdentifier=hash', 'authorityKeyIdentifier=keyid'].join('\n') + '\n');
    openssl('ecparam', '-name', 'prime256v1', '-genkey', '-noout', '-out', 'sub.key');
    openssl('req', '-new', '-key', 'sub.key', '-subj', `/C=UT/O=Test Wallet Issuer/CN=${commonName}`, '-out', 'sub.csr');
    openssl('x509', '-req', '-in', 'sub.csr', '-CA', 'ca.pem', '-CAkey', 'ca.key', '-CAcreateserial', '-days', '1825', '-sha256', '-extfile', 'sub.ext', '-out', 'sub.pem');
    return { certificatePem: readFileSync(at('sub.pem'), 'utf8'), keyPem: readFileSync(at('sub.key'), 'utf8') };
  });
}
