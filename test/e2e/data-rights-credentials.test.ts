import type { Client } from 'pg';
import { signedInUser, type SignedInUser } from '../helpers/data-rights-fixtures';
import { dbClient, jpegBytes, openPage, pageCall, pngBytes, upload } from '../helpers/hosted-client';
import { createOidcTenant, startOidcServer, type OidcTenant } from '../helpers/oidc-login';
import { cli, eventually, http, type TestServer, ENGINES_OFF } from '../helpers/test-server';
import { RawGraphQLWs } from '../helpers/ws-client';

/**
 * Issue #25, findings 7 and 8 (docs/data-rights.md, "Every credential"): restriction and erasure
 * refuse every credential at once, not only tenant keys. A session's `client_secret` reads and
 * watches get what a tenant key gets; evidence links already handed out stop working when the user
 * restricts or deletes, not when they expire; an export bundle is 404 from the moment of deletion.
 */
describe('restriction and erasure refuse every credential at once', () => {
  let server: TestServer;
  let db: Client;
  let acme: OidcTenant;
  const sockets: RawGraphQLWs[] = [];
  const run = Math.random().toString(36).slice(2, 8);
  const BY_ID = `subscription ($id: ID) { sessionStatusChanged(id: $id) { id status } }`;

  beforeAll(async () => {
    // Engines off: a live session is decided (manual_review, evidence kept) as soon as it is submitted.
    server = await startOidcServer(ENGINES_OFF);
    db = await dbClient(server);
    acme = await createOidcTenant(server, 'Acme Shop');
  });
  afterAll(async () => {
    for (const s of sockets) s.close();
    await db?.end();
    await server?.stop();
  });

  /** A live T1 session created for the user (`user_sub`), captured through the hosted page and decided; its evidence links open. */
  const decidedSessionOf = async (user: SignedInUser) => {
    const created = await http(server, 'POST', '/v1/verify/sessions', { key: acme.live_api_key, json: { flow_id: 'default', tier: 'T1', user_sub: user.sub } });
    expect(created.status).toBe(201);
    const page = await openPage(server, created.body);
    expect((await pageCall(server, page, 'POST', 'start')).status).toBe(200);
    expect((await upload(server, page, { class: 'id_document_image' }, pngBytes(16, 10, [10, 120, 200]), 'image/png')).status).toBe(201);
    expect((await upload(server, page, { class: 'selfie_image' }, jpegBytes(3000, 3), 'image/jpeg')).status).toBe(201);
    expect((await pageCall(server, page, 'POST', 'submit')).status).toBe(200);
    const decided = await eventually(async () => {
      const r = await http(server, 'GET', `/v1/verify/sessions/${created.body.id}`, { key: acme.live_api_key });
      return r.body.status === 'manual_review' ? r.body : undefined;
    }, 60_000);
    const evidence: string[] = decided.result.evidence_urls;
    expect(evidence.length).toBeGreaterThanOrEqual(2);
    for (const url of evidence) expect((await fetch(url)).status).toBe(200);
    return { id: created.body.id as string, client_secret: created.body.client_secret as string, evidence };
  };
  const watchWith = async (credential: string, id: string) => {
    const r = await RawGraphQLWs.connect(server.url, RawGraphQLWs.bearer(credential));
    if (!r.acked) throw new Error(`connection refused: ${JSON.stringify(r.close)}`);
    sockets.push(r.client);
    return r.client.subscribe(BY_ID, { id });
  };
  const bodyOf = async (res: Response): Promise<any> => res.json();

  it("restriction: the session's client_secret read and watch get user_restricted, and evidence links already handed out stop; lifting it restores them", async () => {
    const rita = await signedInUser(server, acme, { email: `rita.${run}@example.org` });
    const s = await decidedSessionOf(rita);
    expect((await http(server, 'GET', `/v1/verify/sessions/${s.id}`, { key: s.client_secret })).status).toBe(200);
    const watch = await watchWith(s.client_secret, s.id);
    await watch.waitForData(1);

    expect((await http(server, 'POST', '/v1/me/restrict', { key: rita.accessToken })).status).toBe(202);

    for (const url of s.evidence) {
      const opened = await fetch(url);
      expect(opened.status).toBe(409);
      expect((await bodyOf(opened)).code).toBe('user_restricted');
    }
    const read = await http(server, 'GET', `/v1/verify/sessions/${s.id}`, { key: s.client_secret });
    expect(read.status).toBe(409);
    expect(read.headers.get('content-type')).toMatch(/application\/problem\+json/);
    expect(read.body).toMatchObject({ status: 409, code: 'user_restricted' });
    // The open watch is re-checked (SUBSCRIPTION_AUTH_RECHECK_MS) and ends; a new one is refused.
    await watch.waitForComplete();
    expect(watch.errors.map((e) => e.extensions.code)).toEqual(['user_restricted']);
    const refused = await watchWith(s.client_secret, s.id);
    await refused.waitForComplete();
    expect(refused.errors.map((e) => e.extensions.code)).toEqual(['user_restricted']);
    expect(refused.data).toEqual([]);

    expect((await http(server, 'DELETE', '/v1/me/restrict', { key: rita.accessToken })).status).toBe(202);
    expect((await http(server, 'GET', `/v1/verify/sessions/${s.id}`, { key: s.client_secret })).status).toBe(200);
    for (const url of s.evidence) expect((await fetch(url)).status).toBe(200);
  });

  it("erasure: the client_secret read, watch and evidence links are 404 at once, and the export bundle is 404 from the moment of deletion and after the purge", async () => {
    const erin = await signedInUser(server, acme, { email: `erin.${run}@example.org` });
    const s = await decidedSessionOf(erin);
    const asked = await http(server, 'POST', '/v1/me/data-export', { key: erin.accessToken });
    expect(asked.status).toBe(202);
    const exported = await eventually(async () => {
      const list = await http(server, 'GET', '/v1/me/requests', { key: erin.accessToken });
      const job = (list.body.data as { id: string; status: string; download_url: string | null }[]).find((j) => j.id === asked.body.id);
      return job?.status === 'completed' ? job : undefined;
    }, 120_000);
    expect((await fetch(exported.download_url!)).status).toBe(200);
    const watch = await watchWith(s.client_secret, s.id);
    await watch.waitForData(1);

    expect((await http(server, 'POST', '/v1/me/delete', { key: erin.accessToken })).status).toBe(202);

    const bundle = await fetch(exported.download_url!);
    expect(bundle.status).toBe(404);
    expect((await bodyOf(bundle)).error.code).toBe('not_found');
    const read = await http(server, 'GET', `/v1/verify/sessions/${s.id}`, { key: s.client_secret });
    expect(read.status).toBe(404);
    expect(read.body.error.code).toBe('not_found');
    for (const url of s.evidence) {
      const opened = await fetch(url);
      expect(opened.status).toBe(404);
      expect((await bodyOf(opened)).error.code).toBe('not_found');
    }
    await watch.waitForComplete();
    expect(watch.errors.map((e) => e.extensions.code)).toEqual(['not_found']);
    const refused = await watchWith(s.client_secret, s.id);
    await refused.waitForComplete();
    expect(refused.errors.map((e) => e.extensions.code)).toEqual(['not_found']);

    // The hard purge, run as of 15 days later, changes none of these answers.
    const due = await cli(server.env, ['dsr', 'purge-due', '--as-of', new Date(Date.now() + 15 * 24 * 3600 * 1000).toISOString(), '--json']);
    expect(due.code).toBe(0);
    await eventually(async () => ((await db.query(`SELECT state FROM users WHERE id = $1`, [erin.userId])).rows[0]?.state === 'purged' ? true : undefined), 60_000);
    expect((await http(server, 'GET', `/v1/verify/sessions/${s.id}`, { key: s.client_secret })).status).toBe(404);
    expect((await fetch(exported.download_url!)).status).toBe(404);
    for (const url of s.evidence) expect((await fetch(url)).status).toBe(404);
  });
});
