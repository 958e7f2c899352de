import { randomBytes } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { SimulatedWallet, type WalletRequest } from '../../test/helpers/simulated-wallet';
import { certificateAuthorityWithCrl, freshCertificateAuthority, issueCrl, issueIntermediateCa, issueSigner, pemToDer, type CertificateAuthority } from '../../test/helpers/test-pki';
import { dcApiRequest } from './openid4vp-request';
import { httpCrlFetcher } from './status-list-fetcher';
import { verifyWalletAnswer } from './wallet-answer.verifier';

/**
 * CRL checking of the mdoc document signer where its IACA names a CRL distribution point: the CRL is served
 * by a local HTTP server and fetched by the service's own fetcher. A listed signer fails, an unreachable,
 * forged or out-of-date CRL is an error (never a pass), a clean current CRL passes and says so. The same for
 * the chains of an SD-JWT VC issuer under an intermediate CA and of a status list's own signer.
 */
const ORIGIN = 'https://verify.example.test';
let served: { status: number; body: Uint8Array } = { status: 404, body: new Uint8Array() };
/** CRLs by path, for the chains with an intermediate; any other path answers `served`. */
const servedByPath = new Map<string, { status: number; body: Uint8Array }>();
let server: http.Server;
let base: string;

beforeAll(async () => {
  server = http.createServer((req, res) => {
    const answer = servedByPath.get(req.url ?? '') ?? served;
    res.writeHead(answer.status, { 'content-type': 'application/pkix-crl' });
    res.end(Buffer.from(answer.body));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

const person = { family_name: 'Mustermann', given_name: 'Erika', birth_date: '1984-08-12', portrait: new Uint8Array(randomBytes(64)), document_number: 'T22000129', expiry_date: '2031-01-01', issuing_country: 'UT', nationality: 'DE' };

// The fetcher's timeout only bounds a hang: every CRL here is answered (200, 503) by the local server at once,
// and a 2 s limit failed a good CRL on a loaded machine (issue 47's proof run).
async function verdict(iaca: CertificateAuthority, wallet: SimulatedWallet, fetchCrl = httpCrlFetcher(30_000), credential: 'mdl' | 'pid_sd_jwt' = 'mdl', misbehave?: 'revoked'): Promise<string> {
  const nonce = randomBytes(16).toString('base64url');
  const request = dcApiRequest({ tier: 1, nonce });
  const answer = await wallet.answerDcApi(request.data as unknown as WalletRequest, ORIGIN, { credential, misbehave });
  const trust = { iacaRoots: [pemToDer(iaca.certificatePem)], sdJwtVcRoots: [pemToDer(iaca.certificatePem)], issuerKeys: [] };
  // The wallet's status lists, as its issuer publishes them (the lists' own signatures and CRLs are what is tested).
  const fetchStatusList = async () => wallet.statusList.token ?? Promise.reject(new Error('no list'));
  const fetchStatusListCwt = async () => wallet.statusList.cwt ?? Promise.reject(new Error('no list'));
  try {
    const { result } = await verifyWalletAnswer({ vpToken: answer.data.vp_token, tier: 1, nonce, channel: { kind: 'dc_api', origin: ORIGIN }, trust, now: new Date(), fetchCrl, fetchStatusList, fetchStatusListCwt });
    return `verified ${result.verified.join(',')}`;
  } catch (error) {
    const { reason, detail } = error as { reason?: string; detail?: string };
    return reason ? `${reason}${credential === 'pid_sd_jwt' ? `: ${detail}` : ''}` : String(error);
  }
}

describe('the document signer against its IACA CRL', () => {
  it('passes with a current CRL that does not list it, fails when listed, and is an error when the CRL cannot be had or trusted', async () => {
    const iaca = certificateAuthorityWithCrl(`${base}/iaca.crl`);
    const wallet = new SimulatedWallet(person, undefined, iaca);

    served = { status: 200, body: issueCrl(iaca, []) };
    expect(await verdict(iaca, wallet)).toMatch(/^verified doctype,issuer_chain,issuer_not_revoked,issuer_signature/);

    served = { status: 200, body: issueCrl(iaca, [wallet.documentSignerCertificate]) };
    expect(await verdict(iaca, wallet)).toBe('issuer_certificate_revoked');

    served = { status: 503, body: new Uint8Array() };
    expect(await verdict(iaca, wallet)).toBe('revocation_unavailable');
    served = { status: 200, body: new Uint8Array(randomBytes(200)) };
    expect(await verdict(iaca, wallet)).toBe('revocation_unavailable');
    // Signed by another CA under the same name, and one past its nextUpdate.
    const impostor = certificateAuthorityWithCrl(`${base}/iaca.crl`);
    served = { status: 200, body: issueCrl(impostor, []) };
    expect(await verdict(iaca, wallet)).toBe('revocation_unavailable');
    served = { status: 200, body: issueCrl(iaca, [], -1) };
    expect(await verdict(iaca, wallet)).toBe('revocation_unavailable');
    // Offline (no fetcher, or nothing listening): an error, not a pass.
    expect(await verdict(iaca, wallet, async () => Promise.reject(new Error('offline')))).toBe('revocation_unavailable');
  }, 60_000);
});

describe('an SD-JWT VC issuer chain with an intermediate CA, against both CRLs', () => {
  it('checks the issuer on the intermediate\'s CRL and the intermediate on the root\'s; a listed one fails by name, an unreachable CRL is an error', async () => {
    const root = certificateAuthorityWithCrl(`${base}/root.crl`, 'PID Provider Root');
    const intermediate = issueIntermediateCa(root, `${base}/root.crl`, 'PID Provider Issuing CA');
    const issuer = issueSigner(intermediate, 'sd_jwt_vc_issuer', 365, `${base}/intermediate.crl`);
    const pidIssuer = { ...issuer, chainDer: [issuer.certificateDer, pemToDer(intermediate.certificatePem)] };
    const wallet = new SimulatedWallet(person, undefined, root, { pidIssuer });
    const intermediateDer = pemToDer(intermediate.certificatePem);

    servedByPath.set('/root.crl', { status: 200, body: issueCrl(root, []) });
    servedByPath.set('/intermediate.crl', { status: 200, body: issueCrl(intermediate, []) });
    expect(await verdict(root, wallet, undefined, 'pid_sd_jwt')).toMatch(/^verified vct,issuer_chain,issuer_not_revoked,issuer_signature/);

    servedByPath.set('/intermediate.crl', { status: 200, body: issueCrl(intermediate, [wallet.pidIssuerCertificate]) });
    expect(await verdict(root, wallet, undefined, 'pid_sd_jwt')).toBe("issuer_certificate_revoked: the issuer certificate is on its issuer's CRL");

    servedByPath.set('/intermediate.crl', { status: 200, body: issueCrl(intermediate, []) });
    servedByPath.set('/root.crl', { status: 200, body: issueCrl(root, [intermediateDer]) });
    expect(await verdict(root, wallet, undefined, 'pid_sd_jwt')).toMatch(/^issuer_certificate_revoked: the intermediate CA ".*CN=PID Provider Issuing CA" is on its issuer's CRL$/);

    // The root's CRL where the intermediate's should be: not issued by the issuer's CA, so not a pass.
    servedByPath.set('/root.crl', { status: 200, body: issueCrl(root, []) });
    servedByPath.set('/intermediate.crl', { status: 200, body: issueCrl(root, []) });
    expect(await verdict(root, wallet, undefined, 'pid_sd_jwt')).toBe("revocation_unavailable: the issuer certificate: the CRL was not issued by the certificate's issuer");
    servedByPath.set('/intermediate.crl', { status: 503, body: new Uint8Array() });
    expect(await verdict(root, wallet, undefined, 'pid_sd_jwt')).toBe('revocation_unavailable: the issuer certificate: the CRL could not be fetched or read');
    expect(await verdict(root, wallet, async () => Promise.reject(new Error('offline')), 'pid_sd_jwt')).toMatch(/^revocation_unavailable: /);
  }, 60_000);
});

describe('the certificate that signs a status list, against its CRL', () => {
  it('believes the list while its signer is not on the CRL; a listed signer fails by name, an unreachable CRL is an error, on both formats', async () => {
    // The credentials' own chain names no CRL: what is fetched is the status list signer's.
    const iaca = freshCertificateAuthority('Status List Test IACA');
    const statusListSigner = issueSigner(iaca, 'status_list_signer', 365, `${base}/status-signer.crl`);
    const wallet = new SimulatedWallet(person, { uri: 'https://status.invalid/list/signed-apart', token: null }, iaca, { statusListSigner });
    const signerDer = statusListSigner.certificateDer;

    for (const credential of ['mdl', 'pid_sd_jwt'] as const) {
      servedByPath.set('/status-signer.crl', { status: 200, body: issueCrl(iaca, []) });
      expect(await verdict(iaca, wallet, undefined, credential)).toMatch(/^verified .*,status_signer_not_revoked,status(,|$)/);
      // A clean signer does not make a marked entry pass.
      expect(await verdict(iaca, wallet, undefined, credential, 'revoked')).toMatch(/^credential_revoked/);

      servedByPath.set('/status-signer.crl', { status: 200, body: issueCrl(iaca, [signerDer]) });
      expect(await verdict(iaca, wallet, undefined, credential)).toMatch(/^status_list_signer_revoked/);
      servedByPath.set('/status-signer.crl', { status: 503, body: new Uint8Array() });
      expect(await verdict(iaca, wallet, undefined, credential)).toMatch(/^revocation_unavailable/);
      servedByPath.set('/status-signer.crl', { status: 200, body: issueCrl(iaca, [], -1) });
      expect(await verdict(iaca, wallet, undefined, credential)).toMatch(/^revocation_unavailable/);
      expect(await verdict(iaca, wallet, async () => Promise.reject(new Error('offline')), credential)).toMatch(/^revocation_unavailable/);
    }
    servedByPath.set('/status-signer.crl', { status: 200, body: issueCrl(iaca, [signerDer]) });
    expect(await verdict(iaca, wallet, undefined, 'pid_sd_jwt')).toBe("status_list_signer_revoked: the status list signer certificate is on its issuer's CRL");
    servedByPath.set('/status-signer.crl', { status: 503, body: new Uint8Array() });
    expect(await verdict(iaca, wallet, undefined, 'pid_sd_jwt')).toBe('revocation_unavailable: the status list signer certificate: the CRL could not be fetched or read');
  }, 60_000);
});
