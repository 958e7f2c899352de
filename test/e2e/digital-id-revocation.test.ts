import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { packageImage } from '../../bench/checks/face-images';
import { openPage, pageCall, upload, type PageSession } from '../helpers/hosted-client';
import { checkOf, decided } from '../helpers/live-session';
import { SimulatedWallet, SPECIMEN_PERSON } from '../helpers/simulated-wallet';
import { certificateAuthorityWithCrl, issueCrl, issueIntermediateCa, issueSigner, pemToDer } from '../helpers/test-pki';
import { cli, createTenant, ROOT, startServer, testEnv, type Tenant, type TestServer, http as call } from '../helpers/test-server';

/**
 * D24, revocation of an SD-JWT VC issuer's x5c chain through the started server (docs/digital-ids.md, "What
 * is verified"): a PID provider's issuer certificate under an issuing CA under the operator's root, each CA
 * publishing a CRL (served here over http, as CRLs commonly are). The service fetches both: a clean pair
 * verifies, a revoked issuer or intermediate fails by name, and a CRL it cannot fetch makes the session's
 * `digital_id` check `error` (a person decides), never a pass. The same holds for the certificate that signs
 * the issuer's status list (under the issuing CA, with a CRL of its own): its list is believed only while that
 * CRL does not name it.
 */

const person = SPECIMEN_PERSON;

const crls = new Map<string, { status: number; body: Uint8Array }>();
let crlServer: http.Server;
let crlBase: string;
let server: TestServer;
let acme: Tenant;
let wallet: SimulatedWallet;
let root: ReturnType<typeof certificateAuthorityWithCrl>;
let intermediate: ReturnType<typeof issueIntermediateCa>;
// Status lists are fetched over https only: a server with the test certificate, which the service trusts through NODE_EXTRA_CA_CERTS.
const TLS_DIR = path.join(ROOT, 'test', 'fixtures', 'tls');
let statusServer: https.Server;
/** A wallet whose PID names a status list entry, the list signed by a certificate of its own under the issuing CA. */
let listedWallet: SimulatedWallet;
let statusListSignerDer: Uint8Array;

beforeAll(async () => {
  crlServer = http.createServer((req, res) => {
    const answer = crls.get(req.url ?? '') ?? { status: 404, body: new Uint8Array() };
    res.writeHead(answer.status, { 'content-type': 'application/pkix-crl' });
    res.end(Buffer.from(answer.body));
  });
  await new Promise<void>((resolve) => crlServer.listen(0, '127.0.0.1', resolve));
  crlBase = `http://127.0.0.1:${(crlServer.address() as AddressInfo).port}`;

  root = certificateAuthorityWithCrl(`${crlBase}/root.crl`, 'PID Provider Root');
  intermediate = issueIntermediateCa(root, `${crlBase}/root.crl`, 'PID Provider Issuing CA');
  const issuer = issueSigner(intermediate, 'sd_jwt_vc_issuer', 365, `${crlBase}/issuing.crl`);
  const pidIssuer = { ...issuer, chainDer: [issuer.certificateDer, pemToDer(intermediate.certificatePem)] };
  wallet = new SimulatedWallet(person, undefined, root, { pidIssuer });

  statusServer = https.createServer({ key: readFileSync(path.join(TLS_DIR, 'localhost.key')), cert: readFileSync(path.join(TLS_DIR, 'localhost.crt')) }, (_req, res) => {
    res.writeHead(listedWallet.statusList.token ? 200 : 404, { 'content-type': 'application/statuslist+jwt' });
    res.end(listedWallet.statusList.token ?? '');
  });
  await new Promise<void>((resolve) => statusServer.listen(0, '127.0.0.1', resolve));
  const statusListSigner = issueSigner(intermediate, 'status_list_signer', 365, `${crlBase}/status-signer.crl`);
  statusListSignerDer = statusListSigner.certificateDer;
  const statusList = { uri: `https://localhost:${(statusServer.address() as AddressInfo).port}/status/1`, token: null };
  listedWallet = new SimulatedWallet(person, statusList, root, { pidIssuer, statusListSigner: { ...statusListSigner, chainDer: [statusListSigner.certificateDer, pemToDer(intermediate.certificatePem)] } });

  server = await startServer(
    testEnv({ CHECK_WORKERS: '1', CHECK_DOCUMENT_ENGINE: 'off', CHECK_LIVENESS_ENGINE: 'off', CHECK_ANTI_SPOOF_ENGINE: 'off', NODE_EXTRA_CA_CERTS: path.join(TLS_DIR, 'localhost.crt') }),
  );
  acme = await createTenant(server);
  const pem = path.join(mkdtempSync(path.join(tmpdir(), 'digital-id-revocation-')), 'root.pem');
  writeFileSync(pem, root.certificatePem);
  const added = await cli(server.env, ['trust', 'add', '--environment', 'live', '--kind', 'sd-jwt-vc-issuer', '--pem', pem, '--json']);
  if (added.code !== 0) throw new Error(`trust add: ${added.stderr} ${added.stdout}`);
});

afterAll(async () => {
  await server?.stop();
  await new Promise<void>((resolve) => crlServer?.close(() => resolve()));
  await new Promise<void>((resolve) => statusServer?.close(() => resolve()));
});

const rebase = (url: string) => {
  const u = new URL(url);
  return `${server.url}${u.pathname}${u.search}`;
};

async function answeredSession(by = wallet): Promise<{ page: PageSession; outcome: unknown }> {
  const created = await call(server, 'POST', '/v1/verify/sessions', { key: acme.live_api_key, json: { flow_id: 'default', tier: 'T1' } });
  const page = await openPage(server, created.body);
  expect((await pageCall(server, page, 'POST', 'start')).status).toBe(200);
  const request = await pageCall(server, page, 'POST', 'digital-id/requests');
  const answered = await by.answerOpenid4vpLink(request.body.cross_device.link, { credential: 'pid_sd_jwt', rebase });
  return { page, outcome: await answered.json() };
}

describe('the SD-JWT VC issuer chain against its CAs\' CRLs, through the started server', () => {
  it('verifies with both CRLs clean, and refuses a revoked issuer or issuing CA by name', async () => {
    crls.set('/root.crl', { status: 200, body: issueCrl(root, []) });
    crls.set('/issuing.crl', { status: 200, body: issueCrl(intermediate, []) });
    expect((await answeredSession()).outcome).toEqual({ status: 'verified' });

    crls.set('/issuing.crl', { status: 200, body: issueCrl(intermediate, [wallet.pidIssuerCertificate]) });
    expect((await answeredSession()).outcome).toEqual({ status: 'failed', reason: 'issuer_certificate_revoked' });

    crls.set('/issuing.crl', { status: 200, body: issueCrl(intermediate, []) });
    crls.set('/root.crl', { status: 200, body: issueCrl(root, [pemToDer(intermediate.certificatePem)]) });
    expect((await answeredSession()).outcome).toEqual({ status: 'failed', reason: 'issuer_certificate_revoked' });
  });

  it('makes digital_id an error, not a pass, when a CRL cannot be fetched', async () => {
    crls.set('/root.crl', { status: 200, body: issueCrl(root, []) });
    crls.set('/issuing.crl', { status: 503, body: new Uint8Array() });
    const { page, outcome } = await answeredSession();
    expect(outcome).toEqual({ status: 'error', reason: 'revocation_unavailable' });

    expect((await upload(server, page, { class: 'selfie_image' }, packageImage('franck_04000.jpg').bytes, 'image/jpeg')).status).toBe(201);
    expect((await pageCall(server, page, 'POST', 'submit')).status).toBe(200);
    const s = await decided(server, acme.live_api_key, page.id);
    expect(s.result.decision).not.toBe('approved');
    expect(checkOf(s, 'digital_id')).toMatchObject({ status: 'error', reason: 'revocation_unavailable: the issuer certificate: the CRL could not be fetched or read' });
  });

  it('believes a status list while its signer is not on its CRL; a listed signer fails by name, an unreachable CRL is an error', async () => {
    crls.set('/root.crl', { status: 200, body: issueCrl(root, []) });
    crls.set('/issuing.crl', { status: 200, body: issueCrl(intermediate, []) });
    crls.set('/status-signer.crl', { status: 200, body: issueCrl(intermediate, []) });
    expect((await answeredSession(listedWallet)).outcome).toEqual({ status: 'verified' });

    crls.set('/status-signer.crl', { status: 200, body: issueCrl(intermediate, [statusListSignerDer]) });
    expect((await answeredSession(listedWallet)).outcome).toEqual({ status: 'failed', reason: 'status_list_signer_revoked' });

    crls.set('/status-signer.crl', { status: 503, body: new Uint8Array() });
    const { page, outcome } = await answeredSession(listedWallet);
    expect(outcome).toEqual({ status: 'error', reason: 'revocation_unavailable' });
    expect((await upload(server, page, { class: 'selfie_image' }, packageImage('franck_04000.jpg').bytes, 'image/jpeg')).status).toBe(201);
    expect((await pageCall(server, page, 'POST', 'submit')).status).toBe(200);
    const s = await decided(server, acme.live_api_key, page.id);
    expect(s.result.decision).not.toBe('approved');
    expect(checkOf(s, 'digital_id')).toMatchObject({ status: 'error', reason: 'revocation_unavailable: the status list signer certificate: the CRL could not be fetched or read' });
  });
});
