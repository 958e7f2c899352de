import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { packageImage } from '../../bench/checks/face-images';
import { openPage, pageCall, upload, type PageSession } from '../helpers/hosted-client';
import { checkOf, decided } from '../helpers/live-session';
import { SimulatedWallet, SPECIMEN_PERSON, type AnswerOptions } from '../helpers/simulated-wallet';
import { holdTestClock } from '../helpers/test-clock';
import { freshCertificateAuthority } from '../helpers/test-pki';
import { cli, createTenant, graphql, http, startServer, testEnv, type Tenant, type TestServer } from '../helpers/test-server';

/**
 * D24 through the started server: a hosted session's digital-ID step on the cross-device channel, the
 * simulated wallet scanning the QR (request by reference, direct_post.jwt answer), and the checks deciding.
 * Live sessions trust only an operator's root (here a fresh CA added with `trust add`), test sessions the
 * project's test IACA. The face matcher is the embedded engine, as live verification runs it.
 */

const person = SPECIMEN_PERSON;

let server: TestServer;
let acme: Tenant;
let operatorWallet: SimulatedWallet;
let testIacaWallet: SimulatedWallet;

beforeAll(async () => {
  server = await startServer(testEnv({ CHECK_WORKERS: '1', CHECK_DOCUMENT_ENGINE: 'off', CHECK_LIVENESS_ENGINE: 'off', CHECK_ANTI_SPOOF_ENGINE: 'off' }));
  acme = await createTenant(server);
  const operatorCa = freshCertificateAuthority('Operator IACA');
  const pem = path.join(mkdtempSync(path.join(tmpdir(), 'digital-id-e2e-')), 'operator.pem');
  writeFileSync(pem, operatorCa.certificatePem);
  for (const kind of ['iaca', 'sd-jwt-vc-issuer']) {
    const added = await cli(server.env, ['trust', 'add', '--environment', 'live', '--kind', kind, '--pem', pem, '--json']);
    if (added.code !== 0) throw new Error(`trust add: ${added.stderr} ${added.stdout}`);
  }
  operatorWallet = new SimulatedWallet(person, undefined, operatorCa);
  testIacaWallet = new SimulatedWallet(person);
});

afterAll(async () => {
  await server?.stop();
});

const rebase = (url: string) => {
  const u = new URL(url);
  return `${server.url}${u.pathname}${u.search}`;
};

/**
 * A session whose page started it. A test session's own clock would take it to processing 5 s after creation (D22),
 * after which its page may no longer ask for a digital ID: that clock is held for the rest of the file, so a loaded
 * machine cannot make the page's steps late (issue 47). No test here needs a test session decided.
 */
async function startedSession(key: string, tier = 'T1'): Promise<PageSession> {
  for (;;) {
    const created = await http(server, 'POST', '/v1/verify/sessions', { key, json: { flow_id: 'default', tier } });
    expect(created.status).toBe(201);
    if (!created.body.livemode && !(await holdTestClock(server, created.body.id as string, 'processing'))) continue;
    const page = await openPage(server, created.body);
    expect((await pageCall(server, page, 'POST', 'start')).status).toBe(200);
    return page;
  }
}

/** The page asks for a digital ID; the wallet on the other device scans the QR and answers. */
async function crossDeviceAnswer(page: PageSession, wallet: SimulatedWallet, options: AnswerOptions): Promise<{ status: number; body: any }> {
  const request = await pageCall(server, page, 'POST', 'digital-id/requests');
  expect(request.status).toBe(201);
  expect(request.body.cross_device.link).toMatch(/^openid4vp:\/\/\?client_id=redirect_uri%3A/);
  expect(request.body.dc_api.protocol).toBe('openid4vp-v1-unsigned');
  // No verifier key configured: only the unsigned request is offered, and the view says so.
  expect(request.body.request_signing).toBe('unsigned');
  // Beside it, ISO 18013-7 Annex C for wallets that speak only ISO (test/e2e/digital-id-iso-mdoc.test.ts).
  expect(request.body.dc_api_requests.map((r: { protocol: string }) => r.protocol)).toEqual(['openid4vp-v1-unsigned', 'org-iso-mdoc']);
  expect(request.body.dc_api_requests[0]).toEqual(request.body.dc_api);
  const answered = await wallet.answerOpenid4vpLink(request.body.cross_device.link, { ...options, rebase });
  return { status: answered.status, body: await answered.json() };
}

async function selfieAndSubmit(page: PageSession): Promise<void> {
  expect((await upload(server, page, { class: 'selfie_image' }, packageImage('franck_04000.jpg').bytes, 'image/jpeg')).status).toBe(201);
  const submitted = await pageCall(server, page, 'POST', 'submit');
  expect(submitted.status).toBe(200);
}

describe('the digital-ID step, cross device', () => {
  it('decides a live T1 session on digital_id and the face match of the credential portrait against the selfie', async () => {
    const page = await startedSession(acme.live_api_key);
    expect((await pageCall(server, page, 'GET', '')).body.digital_id).toEqual({ offered: true, latest: null });

    const answer = await crossDeviceAnswer(page, operatorWallet, { credential: 'mdl' });
    expect(answer).toEqual({ status: 200, body: { status: 'verified' } });
    expect((await pageCall(server, page, 'GET', '')).body.digital_id.latest).toMatchObject({ status: 'verified', reason: null });

    await selfieAndSubmit(page);
    const s = await decided(server, acme.live_api_key, page.id);
    expect(s).toMatchObject({ status: 'success', livemode: true, result: { decision: 'approved', achieved_tier: 'T1', badges: ['photo'] } });
    expect(s.result.checks.map((c: { name: string }) => c.name)).toEqual(['digital_id', 'face_match']);
    expect(checkOf(s, 'digital_id')).toMatchObject({
      status: 'pass',
      reason: expect.stringMatching(/^ISO 18013-5 mdoc org\.iso\.18013\.5\.1\.mDL issued by Test Wallet Issuer: verified doctype, issuer_chain, issuer_signature, validity, digests, requested_elements_only, device_auth$/),
    });
    expect(checkOf(s, 'face_match')).toMatchObject({ status: 'pass' });
  });

  it('verifies the EU PID as SD-JWT VC in a test session, under the project test IACA', async () => {
    const page = await startedSession(acme.test_api_key);
    const answer = await crossDeviceAnswer(page, testIacaWallet, { credential: 'pid_sd_jwt' });
    expect(answer).toEqual({ status: 200, body: { status: 'verified' } });
  });

  it('never trusts the project test IACA in a live session', async () => {
    const page = await startedSession(acme.live_api_key);
    expect(await crossDeviceAnswer(page, testIacaWallet, { credential: 'pid_mdoc' })).toEqual({ status: 200, body: { status: 'failed', reason: 'untrusted_issuer' } });
  });

  it('refuses a misbehaving wallet with its reason, and a session submitted on it fails on digital_id', async () => {
    const page = await startedSession(acme.live_api_key);
    expect(await crossDeviceAnswer(page, operatorWallet, { credential: 'pid_sd_jwt', misbehave: 'wrong_nonce' })).toEqual({ status: 200, body: { status: 'failed', reason: 'nonce_mismatch' } });
    expect(await crossDeviceAnswer(page, operatorWallet, { credential: 'mdl', misbehave: 'tampered_element' })).toEqual({ status: 200, body: { status: 'failed', reason: 'digest_mismatch' } });
    await selfieAndSubmit(page);
    const s = await decided(server, acme.live_api_key, page.id);
    expect(s).toMatchObject({ status: 'failed', result: { decision: 'declined', badges: [] } });
    expect(checkOf(s, 'digital_id')).toMatchObject({ status: 'fail', reason: expect.stringMatching(/^digest_mismatch: /) });
    expect(checkOf(s, 'face_match')).toMatchObject({ status: 'skipped' });
  });

  it('takes one answer per request, and refuses garbage at the response endpoint without storing anything', async () => {
    const page = await startedSession(acme.test_api_key);
    const request = await pageCall(server, page, 'POST', 'digital-id/requests');
    const responsePath = `/v1/digital-id/responses/${request.body.id}`;
    const garbage = await fetch(`${server.url}${responsePath}`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: 'response=not-a-jwe' });
    expect(garbage.status).toBe(400);
    expect((await garbage.json()).error.code).toBe('invalid_request');
    expect((await pageCall(server, page, 'GET', '')).body.digital_id.latest).toMatchObject({ status: 'pending' });

    const first = await testIacaWallet.answerOpenid4vpLink(request.body.cross_device.link, { credential: 'mdl', rebase });
    expect(first.status).toBe(200);
    const again = await testIacaWallet.answerOpenid4vpLink(request.body.cross_device.link, { credential: 'mdl', rebase }).catch((e: Error) => e);
    expect(String(again)).toMatch(/request_uri answered 409/);
    expect((await http(server, 'GET', '/v1/digital-id/requests/dreq_000000000000000000000000')).status).toBe(404);
  });

  it('stands an attacker at the response endpoint: racing answers, endless and doubled bodies, NUL and bad ids', async () => {
    const page = await startedSession(acme.test_api_key);
    const request = await pageCall(server, page, 'POST', 'digital-id/requests');
    const responsePath = `/v1/digital-id/responses/${request.body.id}`;
    const post = (body: string, p = responsePath) => fetch(`${server.url}${p}`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body });
    // Refused before any answer is judged: nothing of these is kept.
    const huge = await post('response=' + 'a'.repeat(5 * 1024 * 1024));
    expect(huge.status).toBe(413);
    const doubled = await post('response=a&response=b');
    expect(doubled.status).toBe(400);
    const nul = await post('response=%00');
    expect(nul.status).toBe(400);
    for (const id of ['%00', '%ED%A0%80', 'dreq_' + 'x'.repeat(5000), '..%2F..%2Fsessions']) {
      const r = await post('response=x', `/v1/digital-id/responses/${id}`);
      expect([400, 404]).toContain(r.status);
      expect((await r.json()).error.code).toMatch(/^(invalid_request|not_found)$/);
    }
    expect((await pageCall(server, page, 'GET', '')).body.digital_id.latest).toMatchObject({ status: 'pending' });
    // Five wallets answer the same single-use request at once: one is taken, the others refused.
    const answers = await Promise.all(
      Array.from({ length: 5 }, () => testIacaWallet.answerOpenid4vpLink(request.body.cross_device.link, { credential: 'mdl', rebase }).then((r) => r.status, (e: Error) => String(e))),
    );
    expect(answers.filter((a) => a === 200)).toHaveLength(1);
  });

  it('is a flow setting the /v1 flow routes and GraphQL edit, on by default, and the page honours it per flow', async () => {
    const key = acme.test_api_key;
    const created = await http(server, 'POST', '/v1/developer/flows', { key, json: { name: 'No wallets', digital_id: false } });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ name: 'No wallets', digital_id: false });
    expect((await http(server, 'GET', '/v1/developer/flows/default', { key })).body.digital_id).toBe(true);
    // A session of that flow is not offered a digital ID, and its page cannot ask for one; the default flow's is.
    const off = await http(server, 'POST', '/v1/verify/sessions', { key, json: { flow_id: created.body.id, tier: 'T1' } });
    const offPage = await openPage(server, off.body);
    await pageCall(server, offPage, 'POST', 'start');
    expect((await pageCall(server, offPage, 'GET', '')).body.digital_id).toEqual({ offered: false, latest: null });
    expect((await pageCall(server, offPage, 'POST', 'digital-id/requests')).body.error.code).toBe('invalid_request');
    expect((await pageCall(server, await startedSession(key), 'GET', '')).body.digital_id.offered).toBe(true);

    // GraphQL switches it back on; the next session of the flow is offered it.
    const on = await graphql(server, 'mutation($id: ID!) { updateFlow(flowId: $id, input: { digitalIdEnabled: true }) { id digitalIdEnabled } }', { id: created.body.id }, key);
    expect(on.body.data.updateFlow).toEqual({ id: created.body.id, digitalIdEnabled: true });
    const again = await http(server, 'POST', '/v1/verify/sessions', { key, json: { flow_id: created.body.id, tier: 'T1' } });
    const againPage = await openPage(server, again.body);
    await pageCall(server, againPage, 'POST', 'start');
    expect((await pageCall(server, againPage, 'GET', '')).body.digital_id.offered).toBe(true);

    // Anything but a boolean is refused by name, and changes nothing.
    for (const value of ['off', 0, null, ['true']]) {
      const bad = await http(server, 'PATCH', `/v1/developer/flows/${created.body.id}`, { key, json: { digital_id: value } });
      expect(bad.status).toBe(400);
      expect(bad.body.error).toMatchObject({ code: 'invalid_request', message: expect.stringContaining('digital_id') });
    }
    expect((await http(server, 'GET', `/v1/developer/flows/${created.body.id}`, { key })).body.digital_id).toBe(true);
  });

  it('is not offered when the flow switches it off', async () => {
    const off = await cli(server.env, ['flow', 'update', '--tenant', acme.tenant_id, '--digital-id', 'off', '--json']);
    expect(off.json).toMatchObject({ digital_id: false });
    try {
      const page = await startedSession(acme.test_api_key);
      expect((await pageCall(server, page, 'GET', '')).body.digital_id).toEqual({ offered: false, latest: null });
      const refused = await pageCall(server, page, 'POST', 'digital-id/requests');
      expect(refused.status).toBe(400);
      expect(refused.body.error.code).toBe('invalid_request');
    } finally {
      await cli(server.env, ['flow', 'update', '--tenant', acme.tenant_id, '--digital-id', 'on', '--json']);
    }
  });
});
