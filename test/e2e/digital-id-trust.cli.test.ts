import { X509Certificate } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { serveEmbeddedDatabase } from '../helpers/embedded-database';
import { cli, testEnv } from '../helpers/test-server';
import { freshCertificateAuthority, issueSigner, projectTestIaca } from '../helpers/test-pki';
import { buildVical } from '../helpers/vical-builder';

/**
 * `trust add|list|remove` (D24, docs/digital-ids.md "Trust setup"). The roots are the operator's, one set for
 * the whole service: on a shared PostgreSQL other files add theirs meanwhile, so each assertion is about the
 * roots this file adds, never the whole list. No server runs: the embedded database is served once for the file
 * (test/helpers/embedded-database.ts), and each CLI call connects to it as it would to a server's.
 */

const env = testEnv();
const dir = mkdtempSync(path.join(tmpdir(), 'trust-cli-'));
const file = (name: string, text: string) => {
  writeFileSync(path.join(dir, name), text);
  return path.join(dir, name);
};

type Root = { environment: string; kind: string; fingerprint_sha256: string; source: string; subject: string };
async function list(environment: 'test' | 'live'): Promise<Root[]> {
  const r = await cli(env, ['trust', 'list', '--environment', environment, '--json']);
  expect(r.code).toBe(0);
  return (r.json as { roots: Root[] }).roots;
}

describe('trust CLI', () => {
  let database: { close(): Promise<void> } | undefined;
  beforeAll(async () => {
    database = await serveEmbeddedDatabase(env);
  });
  afterAll(async () => {
    await database?.close();
  });

  it('trusts the project test IACA in test mode only, and never lets live mode hold it', async () => {
    const testIaca = new X509Certificate(projectTestIaca().certificatePem).fingerprint256.replaceAll(':', '').toLowerCase();
    const builtins = (await list('test')).filter((r) => r.source === 'builtin').map((r) => `${r.kind}:${r.fingerprint_sha256}`);
    expect(builtins).toEqual([`iaca:${testIaca}`, `sd_jwt_vc_issuer:${testIaca}`]);
    expect((await list('live')).map((r) => r.fingerprint_sha256)).not.toContain(testIaca);

    const refused = await cli(env, ['trust', 'add', '--environment', 'live', '--kind', 'iaca', '--pem', file('test-iaca.pem', projectTestIaca().certificatePem), '--json']);
    expect(refused.code).toBe(1);
    expect(refused.json).toMatchObject({ error: { code: 'invalid_request', message: 'the project test IACA is never trusted in live mode' } });
    expect((await list('live')).map((r) => r.fingerprint_sha256)).not.toContain(testIaca);

    const builtin = await cli(env, ['trust', 'remove', '--environment', 'test', '--fingerprint', testIaca, '--json']);
    expect(builtin.json).toMatchObject({ error: { code: 'invalid_request' } });
  });

  it('adds, lists and removes an operator root per environment', async () => {
    const ca = freshCertificateAuthority('Operator IACA');
    const fingerprint = new X509Certificate(ca.certificatePem).fingerprint256.replaceAll(':', '').toLowerCase();
    const added = await cli(env, ['trust', 'add', '--environment', 'live', '--kind', 'iaca', '--pem', file('operator.pem', ca.certificatePem), '--json']);
    expect(added.code).toBe(0);
    expect(added.json).toMatchObject({ added: [{ environment: 'live', kind: 'iaca', fingerprint_sha256: fingerprint, source: 'pem' }] });
    expect((await list('live')).filter((r) => r.fingerprint_sha256 === fingerprint).map((r) => r.kind)).toEqual(['iaca']);
    expect((await list('test')).map((r) => r.fingerprint_sha256)).not.toContain(fingerprint);

    const removed = await cli(env, ['trust', 'remove', '--environment', 'live', '--fingerprint', fingerprint, '--json']);
    expect(removed.json).toEqual({ removed: fingerprint });
    expect((await list('live')).map((r) => r.fingerprint_sha256)).not.toContain(fingerprint);
    const again = await cli(env, ['trust', 'remove', '--environment', 'live', '--fingerprint', fingerprint, '--json']);
    expect(again.json).toMatchObject({ error: { code: 'not_found' } });
  });

  it('refuses a certificate that is not a CA, and a file without certificates', async () => {
    const leafCertificate = new X509Certificate(Buffer.from(issueSigner(projectTestIaca(), 'mdoc_document_signer').certificateDer));
    const leaf = leafCertificate.toString();
    const notCa = await cli(env, ['trust', 'add', '--environment', 'test', '--kind', 'iaca', '--pem', file('leaf.pem', leaf), '--json']);
    expect(notCa.json).toMatchObject({ error: { code: 'invalid_request' } });
    const empty = await cli(env, ['trust', 'add', '--environment', 'test', '--kind', 'iaca', '--pem', file('empty.pem', 'nothing here'), '--json']);
    expect(empty.json).toMatchObject({ error: { code: 'invalid_request', message: 'no PEM certificate found' } });
    expect((await list('test')).map((r) => r.fingerprint_sha256)).not.toContain(leafCertificate.fingerprint256.replaceAll(':', '').toLowerCase());
  });

  it('loads the IACAs of a VICAL whose signature verifies against the given VICAL root, and nothing of one that does not', async () => {
    const vicalRoot = freshCertificateAuthority('Test VICAL Root');
    const iacas = [freshCertificateAuthority('State A IACA'), freshCertificateAuthority('State B IACA')];
    const fingerprints = iacas.map((ca) => new X509Certificate(ca.certificatePem).fingerprint256.replaceAll(':', '').toLowerCase());
    const anchor = file('vical-root.pem', vicalRoot.certificatePem);
    const vicalFile = (name: string, bytes: Uint8Array) => {
      writeFileSync(path.join(dir, name), bytes);
      return path.join(dir, name);
    };
    const ours = async () => (await list('live')).filter((r) => fingerprints.includes(r.fingerprint_sha256));

    // Refused, and nothing added: a VICAL signed under another root, one changed after signing, a file that is no VICAL.
    const otherRoot = vicalFile('other.vical', buildVical({ signerCa: freshCertificateAuthority('Someone Else'), iacas }));
    const untrusted = await cli(env, ['trust', 'add', '--environment', 'live', '--vical', otherRoot, '--anchor', anchor, '--json']);
    expect(untrusted.json).toMatchObject({ error: { code: 'invalid_request', message: expect.stringMatching(/^the VICAL signer is not trusted/) } });
    const tampered = vicalFile('tampered.vical', buildVical({ signerCa: vicalRoot, iacas, tamper: true }));
    expect((await cli(env, ['trust', 'add', '--environment', 'live', '--vical', tampered, '--anchor', anchor, '--json'])).json).toMatchObject({
      error: { code: 'invalid_request', message: 'the VICAL signature does not verify' },
    });
    const garbage = vicalFile('garbage.vical', Buffer.from('not cbor at all'));
    expect((await cli(env, ['trust', 'add', '--environment', 'live', '--vical', garbage, '--anchor', anchor, '--json'])).json).toMatchObject({ error: { code: 'invalid_request' } });
    const mixed = await cli(env, ['trust', 'add', '--environment', 'live', '--vical', garbage, '--kind', 'iaca', '--anchor', anchor, '--json']);
    expect(mixed.json).toMatchObject({ error: { code: 'invalid_request' } });
    const noAnchor = await cli(env, ['trust', 'add', '--environment', 'live', '--vical', garbage, '--json']);
    expect(noAnchor.code).not.toBe(0);
    expect(await ours()).toEqual([]);

    const good = vicalFile('good.vical', buildVical({ signerCa: vicalRoot, iacas, provider: 'Test Digital Trust Service' }));
    const loaded = await cli(env, ['trust', 'add', '--environment', 'live', '--vical', good, '--anchor', anchor, '--json']);
    expect(loaded.code).toBe(0);
    expect(loaded.json).toMatchObject({ vical: { provider: 'Test Digital Trust Service', issue_id: 7 } });
    expect((await ours()).map((r) => [r.kind, r.source, r.fingerprint_sha256]).sort()).toEqual(fingerprints.map((f) => ['iaca', 'vical', f]).sort());
    // The VICAL's signer root is the anchor of the list, not an issuer: it is not trusted for credentials.
    const rootFingerprint = new X509Certificate(vicalRoot.certificatePem).fingerprint256.replaceAll(':', '').toLowerCase();
    expect((await list('live')).map((r) => r.fingerprint_sha256)).not.toContain(rootFingerprint);
    for (const f of fingerprints) await cli(env, ['trust', 'remove', '--environment', 'live', '--fingerprint', f, '--json']);
  });

  it('never loads the project test IACA into live mode from a VICAL either', async () => {
    const vicalRoot = freshCertificateAuthority('Test VICAL Root');
    const vical = path.join(dir, 'with-test-iaca.vical');
    writeFileSync(vical, buildVical({ signerCa: vicalRoot, iacas: [projectTestIaca()] }));
    const refused = await cli(env, ['trust', 'add', '--environment', 'live', '--vical', vical, '--anchor', file('root2.pem', vicalRoot.certificatePem), '--json']);
    expect(refused.json).toMatchObject({ error: { code: 'invalid_request', message: 'the project test IACA is never trusted in live mode' } });
  });
});
