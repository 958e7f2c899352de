import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { packageImage } from '../../bench/checks/face-images';
import { openPage, pageCall, upload, type PageSession } from '../helpers/hosted-client';
import { checkOf, decided } from '../helpers/live-session';
import { expectToMatchContract } from '../helpers/openapi-contract';
import { MISBEHAVIOURS, SimulatedWallet, SPECIMEN_PERSON, type AnswerOptions, type Misbehaviour } from '../helpers/simulated-wallet';
import { freshCertificateAuthority } from '../helpers/test-pki';
import { cli, createTenant, http, startServer, testEnv, type Tenant, type TestServer } from '../helpers/test-server';

/**
 * D24, ISO/IEC TS 18013-7 Annex C through the started server: the hosted page's same-device request list
 * carries `org-iso-mdoc` (a DeviceRequest and an EncryptionInfo with the request's key) beside OpenID4VP;
 * a wallet that speaks only ISO (Safari with Apple Wallet) answers it with an HPKE-sealed DeviceResponse
 * that the page posts back. Live sessions, an operator's IACA added with `trust add`.
 */

const ORIGIN = 'https://verify.example.test';
let server: TestServer;
let acme: Tenant;
let wallet: SimulatedWallet;

beforeAll(async () => {
  server = await startServer(testEnv({ PUBLIC_BASE_URL: ORIGIN, CHECK_WORKERS: '1', CHECK_DOCUMENT_ENGINE: 'off', CHECK_LIVENESS_ENGINE: 'off', CHECK_ANTI_SPOOF_ENGINE: 'off' }));
  acme = await createTenant(server);
  const operatorCa = freshCertificateAuthority('Operator IACA');
  const pem = path.join(mkdtempSync(path.join(tmpdir(), 'digital-id-iso-')), 'operator.pem');
  writeFileSync(pem, operatorCa.certificatePem);
  const added = await cli(server.env, ['trust', 'add', '--environment', 'live', '--kind', 'iaca', '--pem', pem, '--json']);
  if (added.code !== 0) throw new Error(`trust add: ${added.stderr} ${added.stdout}`);
  wallet = new SimulatedWallet(SPECIMEN_PERSON, undefined, operatorCa);
});

afterAll(async () => {
  await server?.stop();
});

async function startedSession(): Promise<PageSession> {
  const created = await http(server, 'POST', '/v1/verify/sessions', { key: acme.live_api_key, json: { flow_id: 'default', tier: 'T1' } });
  expect(created.status).toBe(201);
  const page = await openPage(server, created.body);
  expect((await pageCall(server, page, 'POST', 'start')).status).toBe(200);
  return page;
}

/** The page's request list; the Annex C entry is the one an ISO-only wallet takes. */
async function isoRequest(page: PageSession): Promise<{ id: string; iso: { protocol: string; data: Record<string, unknown> } }> {
  const request = await pageCall(server, page, 'POST', 'digital-id/requests');
  expect(request.status).toBe(201);
  const iso = request.body.dc_api_requests.find((r: { protocol: string }) => r.protocol === 'org-iso-mdoc');
  expect(Object.keys(iso.data).sort()).toEqual(['deviceRequest', 'encryptionInfo']);
  return { id: request.body.id, iso };
}

const postAnswer = (page: PageSession, requestId: string, json: unknown) =>
  http(server, 'POST', `/v1/hosted/sessions/${page.id}/digital-id/requests/${requestId}/response`, { headers: { authorization: `Bearer ${page.credential}` }, json });

async function isoAnswer(page: PageSession, options: AnswerOptions): Promise<{ status: number; body: any }> {
  const { id, iso } = await isoRequest(page);
  const answer = await wallet.answerDigitalCredentialRequest(iso, ORIGIN, options);
  expect(answer.protocol).toBe('org-iso-mdoc');
  const sent = await postAnswer(page, id, answer);
  return { status: sent.status, body: sent.body };
}

describe('ISO 18013-7 Annex C (org-iso-mdoc) on the hosted page', () => {
  it('decides a live T1 session on the sealed mDL and the face match of its portrait against the selfie', async () => {
    const page = await startedSession();
    const { id, iso } = await isoRequest(page);
    const sent = await postAnswer(page, id, await wallet.answerDigitalCredentialRequest(iso, ORIGIN, { credential: 'mdl' }));
    expect(sent.body).toEqual({ request_id: id, status: 'verified', reason: null });
    expectToMatchContract('POST', '/v1/hosted/sessions/{id}/digital-id/requests/{requestId}/response', sent);

    expect((await upload(server, page, { class: 'selfie_image' }, packageImage('franck_04000.jpg').bytes, 'image/jpeg')).status).toBe(201);
    expect((await pageCall(server, page, 'POST', 'submit')).status).toBe(200);
    const s = await decided(server, acme.live_api_key, page.id);
    expect(s).toMatchObject({ status: 'success', result: { decision: 'approved', achieved_tier: 'T1' } });
    expect(checkOf(s, 'digital_id')).toMatchObject({ status: 'pass', details: { channel: 'dc_api', format: 'mso_mdoc', credential_type: 'org.iso.18013.5.1.mDL' } });
    expect(checkOf(s, 'face_match')).toMatchObject({ status: 'pass' });
  });

  it('verifies the EU PID as mdoc the same way', async () => {
    expect(await isoAnswer(await startedSession(), { credential: 'pid_mdoc' })).toMatchObject({ status: 200, body: { status: 'verified' } });
  });

  it('refuses every misbehaving wallet with its reason, accepting none', async () => {
    const page = await startedSession();
    const verdicts: Record<string, string> = {};
    for (const misbehave of MISBEHAVIOURS) {
      const r = await isoAnswer(page, { credential: 'mdl', misbehave: misbehave as Misbehaviour });
      verdicts[misbehave] = `${r.status} ${r.body.status} ${r.body.reason}`;
    }
    expect(verdicts).toEqual({
      tampered_element: '200 failed digest_mismatch',
      wrong_nonce: '200 failed device_auth_invalid',
      expired: '200 failed credential_expired',
      untrusted_issuer: '200 failed untrusted_issuer',
      other_transcript: '200 failed device_auth_invalid',
      // The operator's issuer publishes no status list here, so the entry cannot be read: an error, never a pass.
      revoked: '200 error status_unavailable',
      element_not_requested: '200 failed element_not_requested',
    });
  });

  it('stands an attacker at the answer: another origin, another request, garbage, NUL, a replay, racing copies, another session', async () => {
    const page = await startedSession();
    const { id, iso } = await isoRequest(page);
    const refused = async (json: unknown, status = 400, code = 'invalid_request') => {
      const r = await postAnswer(page, id, json);
      expect([r.status, r.body.error?.code]).toEqual([status, code]);
    };
    // Sealed on a phishing page: the transcript (HPKE info) names that origin, so it does not open here.
    await refused(await wallet.answerDigitalCredentialRequest(iso, 'https://phishing.example', { credential: 'mdl' }));
    // Sealed for another request of the same session (its key and nonce).
    const other = await isoRequest(page);
    await refused(await wallet.answerDigitalCredentialRequest(other.iso, ORIGIN, { credential: 'mdl' }));
    for (const response of ['', 'not base64!', '\u0000', '\ud800', 'AAAA', 42, null, ['x']]) await refused({ protocol: 'org-iso-mdoc', data: { response } });
    await refused({ protocol: 'org-iso-mdoc', data: { response: 'a'.repeat(5_000_000) } }, 413, 'payload_too_large');
    await refused({ protocol: 'org-iso-mdoc', data: 'x' });
    await refused({ protocol: 'org-iso-mdoc\u0000', data: { response: 'x' } });
    // Nothing was claimed: the request is still open, and an honest answer is taken once.
    const honest = await wallet.answerDigitalCredentialRequest(iso, ORIGIN, { credential: 'mdl' });
    expect((await postAnswer(page, id, honest)).body).toMatchObject({ status: 'verified' });
    await refused(honest, 409, 'invalid_state');
    // Five copies of an honest answer to one fresh request at once: the single-use request takes one.
    const raced = await isoRequest(page);
    const copy = await wallet.answerDigitalCredentialRequest(raced.iso, ORIGIN, { credential: 'mdl' });
    const statuses = await Promise.all(Array.from({ length: 5 }, () => postAnswer(page, raced.id, copy).then((r) => r.status)));
    expect(statuses.filter((st) => st === 200)).toHaveLength(1);
    expect(statuses.filter((st) => st === 409)).toHaveLength(4);
    // Another session's page cannot answer this session's request.
    const stranger = await startedSession();
    const r = await http(server, 'POST', `/v1/hosted/sessions/${stranger.id}/digital-id/requests/${other.id}/response`, {
      headers: { authorization: `Bearer ${stranger.credential}` },
      json: await wallet.answerDigitalCredentialRequest(other.iso, ORIGIN, { credential: 'mdl' }),
    });
    expect([r.status, r.body.error.code]).toEqual([404, 'not_found']);
  });
});
