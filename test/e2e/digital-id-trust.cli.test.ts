import { X509Certificate } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { cli, testEnv } from '../helpers/test-server';
import { freshCertificateAuthority, issueSigner, projectTestIaca } from '../helpers/test-pki';

/**
 * `trust add|list|remove` (D24, docs/digital-ids.md "Trust setup"). The roots are the operator's, one set for
 * the whole service: on a shared PostgreSQL other files add theirs meanwhile, so each assertion is about the
 * roots this file adds, never the whole list.
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
});
