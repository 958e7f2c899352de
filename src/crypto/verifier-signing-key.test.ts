import { createHash, X509Certificate } from 'node:crypto';
import { freshCertificateAuthority, issueVerifierCertificate } from '../../test/helpers/test-pki';
import { checkRequestObject, RequestRefused } from '../../test/helpers/wallet-request-check';
import { ConfigError, loadConfig } from '../config';
import { VerifierSigningKey } from './verifier-signing-key';

/**
 * The verifier key's configuration (DIGITAL_ID_VERIFIER_*; docs/digital-ids.md, "Signed requests"): a key
 * and certificate that do not belong together, or a name the certificate does not carry, stop the service at
 * start with the variable named; `x509_hash` needs no name, and its requests pass a wallet's checks.
 */

const ca = freshCertificateAuthority('Unit Reader CA');
const verifier = issueVerifierCertificate(ca, 'verify.example.test');
const other = issueVerifierCertificate(ca, 'other.example.test');

function configError(env: Record<string, string>): string {
  try {
    loadConfig({ PUBLIC_BASE_URL: 'https://verify.example.test', ...env });
  } catch (err) {
    if (err instanceof ConfigError) return err.message;
    throw err;
  }
  return 'accepted';
}

describe('DIGITAL_ID_VERIFIER_* configuration', () => {
  it('is off when unset, and takes a matching key and chain under x509_san_dns', () => {
    expect(loadConfig({}).digitalId.verifierSigning).toBeNull();
    expect(configError({ DIGITAL_ID_VERIFIER_KEY: verifier.keyPem, DIGITAL_ID_VERIFIER_CERTIFICATE: verifier.chainPem })).toBe('accepted');
  });

  it('refuses, naming the variable, what cannot sign a request a wallet would take', () => {
    expect(configError({ DIGITAL_ID_VERIFIER_KEY: verifier.keyPem })).toMatch(/set both or neither/);
    expect(configError({ DIGITAL_ID_VERIFIER_KEY: other.keyPem, DIGITAL_ID_VERIFIER_CERTIFICATE: verifier.chainPem })).toMatch(/DIGITAL_ID_VERIFIER_KEY is not the key of the first certificate/);
    expect(configError({ DIGITAL_ID_VERIFIER_KEY: 'not a key', DIGITAL_ID_VERIFIER_CERTIFICATE: verifier.chainPem })).toMatch(/DIGITAL_ID_VERIFIER_KEY is not a PEM private key/);
    expect(configError({ DIGITAL_ID_VERIFIER_KEY: other.keyPem, DIGITAL_ID_VERIFIER_CERTIFICATE: other.chainPem })).toMatch(/x509_san_dns needs the host of PUBLIC_BASE_URL \(verify\.example\.test\) among the certificate's DNS names \(other\.example\.test\)/);
    expect(configError({ DIGITAL_ID_VERIFIER_KEY: verifier.keyPem, DIGITAL_ID_VERIFIER_CERTIFICATE: ca.certificatePem })).toMatch(/DIGITAL_ID_VERIFIER_KEY is not the key/);
    expect(configError({ DIGITAL_ID_VERIFIER_KEY: verifier.keyPem, DIGITAL_ID_VERIFIER_CERTIFICATE: verifier.chainPem, DIGITAL_ID_VERIFIER_CLIENT_ID_PREFIX: 'redirect_uri' })).toMatch(/DIGITAL_ID_VERIFIER_CLIENT_ID_PREFIX/);
    // A chain in the wrong order (CA first).
    expect(configError({ DIGITAL_ID_VERIFIER_KEY: verifier.keyPem, DIGITAL_ID_VERIFIER_CERTIFICATE: ca.certificatePem + verifier.certificatePem })).toMatch(/not the key of the first certificate/);
  });

  it('under x509_hash needs no name, and a wallet binds the client_id to the certificate', () => {
    expect(configError({ DIGITAL_ID_VERIFIER_KEY: other.keyPem, DIGITAL_ID_VERIFIER_CERTIFICATE: other.chainPem, DIGITAL_ID_VERIFIER_CLIENT_ID_PREFIX: 'x509_hash' })).toBe('accepted');
    const key = VerifierSigningKey.load({ key: other.keyPem, certificate: other.chainPem, clientIdPrefix: 'x509_hash' }, 'https://verify.example.test');
    const hash = createHash('sha256').update(new X509Certificate(other.certificatePem).raw).digest('base64url');
    expect(key.clientId).toBe(`x509_hash:${hash}`);

    const request = { client_id: key.clientId, response_uri: 'https://verify.example.test/v1/digital-id/responses/x', nonce: 'n' };
    const jwt = key.signRequestObject(request);
    expect(checkRequestObject(jwt, { trustedVerifierRoots: [ca.certificatePem], clientIdFromLink: key.clientId })).toMatchObject(request);
    // The same signature under another certificate's hash is refused.
    const otherHash = createHash('sha256').update(new X509Certificate(verifier.certificatePem).raw).digest('base64url');
    const lying = VerifierSigningKey.load({ key: other.keyPem, certificate: other.chainPem, clientIdPrefix: 'x509_hash' }, 'https://verify.example.test').signRequestObject({ ...request, client_id: `x509_hash:${otherHash}` });
    expect(() => checkRequestObject(lying, { trustedVerifierRoots: [ca.certificatePem] })).toThrow(RequestRefused);
    expect(() => checkRequestObject(lying, { trustedVerifierRoots: [ca.certificatePem] })).toThrow(/client_id_mismatch/);
  });
});
