import { createPrivateKey, sign } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { openPage, pageCall, type PageSession } from '../helpers/hosted-client';
import { expectToMatchContract } from '../helpers/openapi-contract';
import { SimulatedWallet, type WalletPerson } from '../helpers/simulated-wallet';
import { freshCertificateAuthority, issueVerifierCertificate } from '../helpers/test-pki';
import { cli, createTenant, http, startServer, testEnv, type Tenant, type TestServer } from '../helpers/test-server';
import { RequestRefused } from '../helpers/wallet-request-check';

/**
 * D24, signed requests (docs/digital-ids.md, "Signed requests") through the started server: with a verifier
 * key and certificate configured, the cross-device request object and the same-device `openid4vp-v1-signed`
 * request are JWT-secured authorization requests signed by it under the `x509_san_dns:` client identifier.
 * The simulated wallet checks them as a wallet does (signature, verifier root, client_id binding, origin)
 * and answers; a request altered on its way, signed by another key, or naming another client_id is refused
 * by the wallet before it discloses anything, and the service's request stays unanswered.
 */

const HOST = 'verify.example.test';
const ORIGIN = `https://${HOST}`;
const person: WalletPerson = {
  family_name: 'Mustermann',
  given_name: 'Erika',
  birth_date: '1984-08-12',
  portrait: new Uint8Array(Buffer.from('/9j/4AAQSkZJRgABAQ', 'base64')),
  document_number: 'T22000129',
  expiry_date: '2031-01-01',
  issuing_country: 'UT',
  nationality: 'DE',
};

const verifierCa = freshCertificateAuthority('Test Reader CA');
const verifier = issueVerifierCertificate(verifierCa, HOST);
let server: TestServer;
let acme: Tenant;
// Live sessions (a test session moves on by its own clock within seconds), so the wallet's issuers chain to an operator root.
const operatorCa = freshCertificateAuthority('Operator IACA');
const wallet = new SimulatedWallet(person, undefined, operatorCa);
wallet.trustedVerifierRoots.push(verifierCa.certificatePem);

beforeAll(async () => {
  server = await startServer(
    testEnv({
      PUBLIC_BASE_URL: ORIGIN,
      DIGITAL_ID_VERIFIER_KEY: verifier.keyPem,
      // The base64 form, as an environment that cannot hold newlines gives it.
      DIGITAL_ID_VERIFIER_CERTIFICATE: Buffer.from(verifier.chainPem).toString('base64'),
      CHECK_WORKERS: '1',
      CHECK_DOCUMENT_ENGINE: 'off',
      CHECK_LIVENESS_ENGINE: 'off',
      CHECK_ANTI_SPOOF_ENGINE: 'off',
    }),
  );
  acme = await createTenant(server);
  const pem = path.join(mkdtempSync(path.join(tmpdir(), 'digital-id-signed-')), 'operator.pem');
  writeFileSync(pem, operatorCa.certificatePem);
  for (const kind of ['iaca', 'sd-jwt-vc-issuer']) {
    const added = await cli(server.env, ['trust', 'add', '--environment', 'live', '--kind', kind, '--pem', pem, '--json']);
    if (added.code !== 0) throw new Error(`trust add: ${added.stderr} ${added.stdout}`);
  }
});

afterAll(async () => {
  await server?.stop();
});

const rebase = (url: string) => {
  const u = new URL(url);
  return `${server.url}${u.pathname}${u.search}`;
};

async function requestOfNewSession(): Promise<{ page: PageSession; request: any }> {
  const created = await http(server, 'POST', '/v1/verify/sessions', { key: acme.live_api_key, json: { flow_id: 'default', tier: 'T1' } });
  const page = await openPage(server, created.body);
  expect((await pageCall(server, page, 'POST', 'start')).status).toBe(200);
  const request = await pageCall(server, page, 'POST', 'digital-id/requests');
  expect(request.status).toBe(201);
  expectToMatchContract('POST', '/v1/hosted/sessions/{id}/digital-id/requests', request);
  return { page, request: request.body };
}

async function latest(page: PageSession): Promise<unknown> {
  return (await pageCall(server, page, 'GET', '')).body.digital_id.latest;
}

function payloadOf(jwt: string): Record<string, unknown> {
  return JSON.parse(Buffer.from(jwt.split('.')[1], 'base64url').toString('utf8'));
}

/** The JWT with its payload changed and the original signature kept. */
function withPayload(jwt: string, change: (payload: Record<string, unknown>) => void): string {
  const [header, , signature] = jwt.split('.');
  const payload = payloadOf(jwt);
  change(payload);
  return `${header}.${Buffer.from(JSON.stringify(payload)).toString('base64url')}.${signature}`;
}

/** The JWT re-signed by another key under the same x5c header. */
function resignedByAnotherKey(jwt: string, keyPem: string): string {
  const [header, payload] = jwt.split('.');
  const signature = sign('sha256', Buffer.from(`${header}.${payload}`), { key: createPrivateKey(keyPem), dsaEncoding: 'ieee-p1363' });
  return `${header}.${payload}.${signature.toString('base64url')}`;
}

async function refusal(promise: Promise<unknown>): Promise<string> {
  const outcome = await promise.then(
    () => 'answered',
    (err: unknown) => (err instanceof RequestRefused ? err.reason : `unexpected: ${String(err)}`),
  );
  return outcome;
}

describe('signed requests, cross device', () => {
  it('serves a request object signed by the verifier key under x509_san_dns, which the wallet checks and answers', async () => {
    const { page, request } = await requestOfNewSession();
    expect(request.request_signing).toBe('x509_san_dns');
    const link = new URL(request.cross_device.link);
    expect(link.searchParams.get('client_id')).toBe(`x509_san_dns:${HOST}`);

    const served = await fetch(rebase(request.cross_device.request_uri));
    expect(served.headers.get('content-type')).toMatch(/^application\/oauth-authz-req\+jwt/);
    const jwt = await served.text();
    const header = JSON.parse(Buffer.from(jwt.split('.')[0], 'base64url').toString('utf8'));
    expect(header).toMatchObject({ alg: 'ES256', typ: 'oauth-authz-req+jwt' });
    expect(header.x5c).toHaveLength(2);
    expect(payloadOf(jwt)).toMatchObject({ client_id: `x509_san_dns:${HOST}`, response_mode: 'direct_post.jwt', response_uri: `${ORIGIN}/v1/digital-id/responses/${request.id}` });

    // The SD-JWT VC's key binding names the x509_san_dns client id as its audience; the mdoc's transcript holds it.
    const answered = await wallet.answerOpenid4vpLink(request.cross_device.link, { credential: 'pid_sd_jwt', rebase });
    expect({ status: answered.status, body: await answered.json() }).toEqual({ status: 200, body: { status: 'verified' } });
    expect(await latest(page)).toMatchObject({ status: 'verified' });

    const mdoc = await requestOfNewSession();
    const answeredMdoc = await wallet.answerOpenid4vpLink(mdoc.request.cross_device.link, { credential: 'mdl', rebase });
    expect(await answeredMdoc.json()).toEqual({ status: 'verified' });
  });

  it('the wallet refuses an altered request, one signed by another key, one from a verifier it does not trust, and one naming another client_id', async () => {
    const { page, request } = await requestOfNewSession();
    const answer = (options: { intercept?: (jwt: string) => string; link?: string; wallet?: SimulatedWallet }) =>
      refusal((options.wallet ?? wallet).answerOpenid4vpLink(options.link ?? request.cross_device.link, { credential: 'mdl', rebase, intercept: options.intercept }));

    // Sent elsewhere on its way: the response_uri changed, the signature kept.
    expect(await answer({ intercept: (jwt) => withPayload(jwt, (p) => (p.response_uri = 'https://attacker.example/collect')) })).toBe('request_signature_invalid');
    // Asking for more than the verifier signed for.
    expect(await answer({ intercept: (jwt) => withPayload(jwt, (p) => ((p.dcql_query as any).credentials[0].claims.push({ path: ['org.iso.18013.5.1', 'resident_address'] }))) })).toBe('request_signature_invalid');
    // Another key signs it, presenting the verifier's certificate.
    const attacker = issueVerifierCertificate(freshCertificateAuthority('Attacker CA'), HOST);
    expect(await answer({ intercept: (jwt) => resignedByAnotherKey(jwt, attacker.keyPem) })).toBe('request_signature_invalid');
    // Downgraded to an unsigned request under the verifier's client_id.
    expect(await answer({ intercept: (jwt) => `${Buffer.from(JSON.stringify({ alg: 'none', typ: 'oauth-authz-req+jwt' })).toString('base64url')}.${jwt.split('.')[1]}.` })).toBe('unsigned_request_not_allowed');
    // A wallet whose reader trust list lacks the verifier's root.
    expect(await answer({ wallet: new SimulatedWallet(person) })).toBe('untrusted_verifier');
    // A link naming another client_id than the request object.
    const otherLink = new URL(request.cross_device.link);
    otherLink.searchParams.set('client_id', 'x509_san_dns:other.example.test');
    expect(await answer({ link: otherLink.toString() })).toBe('client_id_mismatch');

    // Nothing reached the service's response endpoint: the request is still open, and an honest answer is taken.
    expect(await latest(page)).toMatchObject({ status: 'pending' });
    const honest = await wallet.answerOpenid4vpLink(request.cross_device.link, { credential: 'mdl', rebase });
    expect(await honest.json()).toEqual({ status: 'verified' });
  });
});

describe('signed requests, same device (Digital Credentials API)', () => {
  it('offers openid4vp-v1-signed first with the unsigned request beside it; the wallet checks the signed one and its answer is verified', async () => {
    const { page, request } = await requestOfNewSession();
    expect(request.dc_api_requests.map((r: { protocol: string }) => r.protocol)).toEqual(['openid4vp-v1-signed', 'openid4vp-v1-unsigned', 'org-iso-mdoc']);
    expect(request.dc_api).toEqual(request.dc_api_requests[0]);
    const signed = request.dc_api_requests[0];
    expect(Object.keys(signed.data)).toEqual(['request']);
    expect(payloadOf(signed.data.request)).toMatchObject({ client_id: `x509_san_dns:${HOST}`, expected_origins: [ORIGIN], response_mode: 'dc_api' });

    const answer = await wallet.answerDigitalCredentialRequest(signed, ORIGIN, { credential: 'pid_sd_jwt' });
    expect(answer.protocol).toBe('openid4vp-v1-signed');
    const sent = await http(server, 'POST', `/v1/hosted/sessions/${page.id}/digital-id/requests/${request.id}/response`, { headers: { authorization: `Bearer ${page.credential}` }, json: answer });
    expect(sent.body).toEqual({ request_id: request.id, status: 'verified', reason: null });
    expectToMatchContract('POST', '/v1/hosted/sessions/{id}/digital-id/requests/{requestId}/response', sent);
  });

  it('the wallet refuses a signed request on a page of another origin, or altered on its way', async () => {
    const { page, request } = await requestOfNewSession();
    const signed = request.dc_api_requests[0];
    expect(await refusal(wallet.answerDigitalCredentialRequest(signed, 'https://phishing.example', { credential: 'mdl' }))).toBe('origin_not_expected');
    const altered = { ...signed, data: { request: withPayload(signed.data.request, (p) => (p.expected_origins = ['https://phishing.example'])) } };
    expect(await refusal(wallet.answerDigitalCredentialRequest(altered, 'https://phishing.example', { credential: 'mdl' }))).toBe('request_signature_invalid');
    expect(await refusal(new SimulatedWallet(person).answerDigitalCredentialRequest(signed, ORIGIN, { credential: 'mdl' }))).toBe('untrusted_verifier');
    expect(await latest(page)).toMatchObject({ status: 'pending' });

    // The unsigned request beside it still works for a wallet that cannot check signatures.
    const unsigned = await wallet.answerDigitalCredentialRequest(request.dc_api_requests[1], ORIGIN, { credential: 'mdl' });
    const sent = await http(server, 'POST', `/v1/hosted/sessions/${page.id}/digital-id/requests/${request.id}/response`, { headers: { authorization: `Bearer ${page.credential}` }, json: unsigned });
    expect(sent.body).toMatchObject({ status: 'verified' });
  });
});

// Last in the file: it restarts the server without the verifier key.
describe('a request made before the verifier key changed', () => {
  it('is answered against what it told the wallet after a restart without the key: client_id, response URI, origin and the request object it served', async () => {
    const fetchedBefore = await requestOfNewSession();
    const fetchedAfter = await requestOfNewSession();
    const sameDevice = await requestOfNewSession();
    // The wallet scanned the first QR and holds its checked request while the person consents.
    const held = await wallet.fetchOpenid4vpRequest(fetchedBefore.request.cross_device.link, { rebase });
    expect(held.client_id).toBe(`x509_san_dns:${HOST}`);

    // The operator restarts the service without the verifier key (same database): new requests are unsigned.
    const env: NodeJS.ProcessEnv = { ...server.env, PORT: '0' };
    delete env.DIGITAL_ID_VERIFIER_KEY;
    delete env.DIGITAL_ID_VERIFIER_CERTIFICATE;
    await server.stop();
    server = await startServer(env);
    const unsignedNow = await requestOfNewSession();
    expect(unsignedNow.request.request_signing).toBe('unsigned');

    // The mdoc transcript holds the client_id the request named, not the redirect_uri: one of now.
    const answered = await wallet.answerFetchedRequest(held, { credential: 'mdl', rebase });
    expect({ status: answered.status, body: await answered.json() }).toEqual({ status: 200, body: { status: 'verified' } });
    expect(await latest(fetchedBefore.page)).toMatchObject({ status: 'verified' });

    // The request_uri still serves the request object signed when the request was made, which the wallet checks;
    // the SD-JWT VC's key binding names its client_id as the audience.
    const late = await wallet.answerOpenid4vpLink(fetchedAfter.request.cross_device.link, { credential: 'pid_sd_jwt', rebase });
    expect(await late.json()).toEqual({ status: 'verified' });

    // The signed DC API request was offered: its answer is taken, though this server signs nothing.
    const answer = await wallet.answerDigitalCredentialRequest(sameDevice.request.dc_api_requests[0], ORIGIN, { credential: 'mdl' });
    const sent = await http(server, 'POST', `/v1/hosted/sessions/${sameDevice.page.id}/digital-id/requests/${sameDevice.request.id}/response`, { headers: { authorization: `Bearer ${sameDevice.page.credential}` }, json: answer });
    expect(sent.body).toEqual({ request_id: sameDevice.request.id, status: 'verified', reason: null });
    // A request made without the key offered no signed request: an answer claiming one is refused.
    const claimed = { ...(await wallet.answerDigitalCredentialRequest(unsignedNow.request.dc_api_requests[0], ORIGIN, { credential: 'mdl' })), protocol: 'openid4vp-v1-signed' };
    const refused = await http(server, 'POST', `/v1/hosted/sessions/${unsignedNow.page.id}/digital-id/requests/${unsignedNow.request.id}/response`, { headers: { authorization: `Bearer ${unsignedNow.page.credential}` }, json: claimed });
    expect(refused.status).toBe(400);
    expect(refused.body.error.code).toBe('invalid_request');
  });
});
