import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Client } from 'pg';
import { packageImage } from '../../bench/checks/face-images';
import { openEnvelope } from '../../src/data-rights/export/document-envelope';
import { signedInUser, type SignedInUser } from '../helpers/data-rights-fixtures';
import { dbClient, openPage, pageCall } from '../helpers/hosted-client';
import { createOidcTenant, startOidcServer, type OidcTenant } from '../helpers/oidc-login';
import { findPersonalData } from '../helpers/personal-data-scan';
import { SimulatedWallet, type WalletPerson } from '../helpers/simulated-wallet';
import { cli, eventually, http, type TestServer } from '../helpers/test-server';
import { blobFile } from '../helpers/vault-files';

const DAY = 86_400_000;

/**
 * D24's artifact class `digital_id_presentation` through the data rights, on the started server: a user
 * answers two sessions with a wallet (an mDL as mdoc, the EU PID as SD-JWT VC); the vault keeps only the
 * elements the request asked for, the user's export holds both presentations, and after the erasure's hard
 * purge neither the database nor the vault's files hold any of their values.
 */
describe('a digital ID presentation, exported and erased with its user', () => {
  const run = randomBytes(4).toString('hex');
  const person: WalletPerson = {
    family_name: `Walletfamily${run}`,
    given_name: `Walletgiven${run}`,
    birth_date: '1931-02-17',
    portrait: packageImage('franck_02221.jpg').bytes,
    document_number: `DL${run.toUpperCase()}9`,
    expiry_date: '2033-03-03',
    issuing_country: 'UT',
    nationality: 'DE',
    resident_address: `Unaskedstreet ${run}, Utopia`,
  };
  /** The values the requests asked for (T1), as they are written in each format. */
  const disclosedValues = [person.family_name, person.given_name, person.document_number];
  let server: TestServer;
  let db: Client;
  let acme: OidcTenant;
  let user: SignedInUser;
  const sessionIds: string[] = [];
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'digital-id-dsr-'));

  beforeAll(async () => {
    server = await startOidcServer({ CHECK_WORKERS: '1', CHECK_DOCUMENT_ENGINE: 'off', CHECK_LIVENESS_ENGINE: 'off', CHECK_ANTI_SPOOF_ENGINE: 'off', CHECK_FACE_MATCH_ENGINE: 'off' });
    db = await dbClient(server);
    acme = await createOidcTenant(server, 'acme');
    user = await signedInUser(server, acme, { email: `wallet.${run}@example.org` });
    const wallet = new SimulatedWallet(person);
    for (const credential of ['mdl', 'pid_sd_jwt'] as const) {
      const created = await http(server, 'POST', '/v1/verify/sessions', { key: acme.test_api_key, json: { flow_id: 'default', tier: 'T1' } });
      expect(created.status).toBe(201);
      // Bound as the sign-in at the end of the hosted flow binds it (the fixture's way, as the erasure test does).
      await db.query(`UPDATE sessions SET user_id = $2 WHERE id = $1`, [created.body.id, user.userId]);
      const page = await openPage(server, created.body);
      expect((await pageCall(server, page, 'POST', 'start')).status).toBe(200);
      const request = await pageCall(server, page, 'POST', 'digital-id/requests');
      expect(request.status).toBe(201);
      const answered = await wallet.answerOpenid4vpLink(request.body.cross_device.link, { credential });
      expect(await answered.json()).toEqual({ status: 'verified' });
      sessionIds.push(created.body.id);
    }
  }, 180_000);

  afterAll(async () => {
    await db?.end();
    await server?.stop();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('keeps the presentation encrypted, and no element the request did not ask for anywhere', async () => {
    const kept = await db.query(`SELECT class, blob_key FROM artifacts WHERE session_id = ANY($1) ORDER BY class`, [sessionIds]);
    expect(kept.rows.map((r: { class: string }) => r.class)).toEqual(['digital_id_presentation', 'digital_id_presentation', 'id_document_image', 'id_document_image']);
    // The database holds none of the claims (the vault's blobs are sealed), and the undisclosed address is nowhere.
    expect(await findPersonalData(db, [...disclosedValues, person.resident_address!])).toEqual([]);
    for (const r of kept.rows as { blob_key: string }[]) {
      const file = fs.readFileSync(blobFile(server.env.DATA_DIR!, r.blob_key));
      for (const value of [...disclosedValues, person.resident_address!]) expect(file.includes(Buffer.from(value))).toBe(false);
    }
  });

  it("is in the user's export, holding exactly the requested elements", async () => {
    const created = await http(server, 'POST', '/v1/me/data-export', { key: user.accessToken });
    expect(created.status).toBe(202);
    const job = await eventually(async () => {
      const list = await http(server, 'GET', '/v1/me/requests', { key: user.accessToken });
      const j = (list.body.data as { id: string; status: string; download_url: string; document_key: string }[]).find((x) => x.id === created.body.id);
      return j && ['completed', 'failed'].includes(j.status) ? j : undefined;
    }, 120_000, 600);
    expect(job.status).toBe('completed');
    fs.writeFileSync(path.join(dir, 'e.zip'), Buffer.from(await (await fetch(job.download_url)).arrayBuffer()));
    execFileSync('unzip', ['-q', path.join(dir, 'e.zip'), '-d', path.join(dir, 'x')]);
    const key = Buffer.from(job.document_key, 'base64');
    const documents = fs.readdirSync(path.join(dir, 'x', 'documents'));
    const presentations = documents
      .filter((name) => name.endsWith('.json'))
      .map((name) => JSON.parse(openEnvelope(key, fs.readFileSync(path.join(dir, 'x', 'documents', name))).toString('utf8')));
    expect(presentations.map((p) => p.credential_type).sort()).toEqual(['org.iso.18013.5.1.mDL', 'urn:eudi:pid:1']);
    const t1 = ['birth_date', 'document_number', 'expiry_date', 'family_name', 'given_name', 'issuing_country', 'portrait'];
    for (const p of presentations) {
      expect(Object.keys(p.claims).sort()).toEqual(t1);
      expect(p.claims).toMatchObject({ family_name: person.family_name, given_name: person.given_name, document_number: person.document_number });
      // The presentation as the wallet sent it: the held-but-unasked address and nationality are not in it.
      const raw = p.format === 'mso_mdoc' ? Buffer.from(p.presentation, 'base64url') : Buffer.from(disclosuresOf(p.presentation).join('\n'));
      expect(raw.includes(Buffer.from(person.family_name))).toBe(true);
      expect(raw.includes(Buffer.from(person.resident_address!))).toBe(false);
      expect(raw.includes(Buffer.from('resident_address'))).toBe(false);
      expect(raw.includes(Buffer.from('nationalit'))).toBe(false);
    }
    // The credential portraits are exported as document images too.
    expect(documents.filter((name) => name.endsWith('.jpg'))).toHaveLength(2);
  });

  it('leaves none of its values in any table, column or vault file after the erasure', async () => {
    const keys = await db.query(`SELECT blob_key FROM artifacts WHERE session_id = ANY($1) AND blob_key IS NOT NULL`, [sessionIds]);
    const files = keys.rows.map((r: { blob_key: string }) => blobFile(server.env.DATA_DIR!, r.blob_key));
    expect(files.length).toBe(4);
    expect((await http(server, 'POST', '/v1/me/delete', { key: user.accessToken })).status).toBe(202);
    const due = await cli(server.env, ['dsr', 'purge-due', '--as-of', new Date(Date.now() + 15 * DAY).toISOString(), '--json']);
    expect(due.json?.enqueued).toContain(user.userId);
    await eventually(async () => ((await db.query(`SELECT state FROM users WHERE id = $1`, [user.userId])).rows[0]?.state === 'purged' ? true : undefined), 60_000);

    expect(await findPersonalData(db, [...disclosedValues, person.resident_address!])).toEqual([]);
    const left = await db.query(`SELECT count(*)::int AS n FROM artifact_blobs b JOIN artifacts a ON a.id = b.artifact_id WHERE a.session_id = ANY($1)`, [sessionIds]);
    expect(left.rows[0].n).toBe(0);
    expect(files.filter((f) => fs.existsSync(f))).toEqual([]);
    // Every file left in the vault, read raw: none holds a value of the presentations.
    for (const f of walk(path.join(server.env.DATA_DIR!, 'vault'))) {
      const bytes = fs.readFileSync(f);
      for (const value of disclosedValues) expect(bytes.includes(Buffer.from(value))).toBe(false);
    }
    // The requests' rows stay for the tenant's books, with what was verified and no personal data.
    const requests = await db.query(`SELECT status FROM digital_id_requests WHERE session_id = ANY($1)`, [sessionIds]);
    expect(requests.rows).toEqual([{ status: 'verified' }, { status: 'verified' }]);
  });
});

/** The disclosures of a compact SD-JWT presentation, decoded (the issuer-signed part holds only their digests). */
function disclosuresOf(presentation: string): string[] {
  return presentation.split('~').slice(1, -1).filter(Boolean).map((d) => Buffer.from(d, 'base64url').toString('utf8'));
}

function walk(dir: string): string[] {
  if (!fs.existsSync(dir)) return [];
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? walk(path.join(dir, e.name)) : [path.join(dir, e.name)]));
}
