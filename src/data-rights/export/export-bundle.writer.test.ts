import { execFileSync, spawnSync } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import { newDocumentKey, openEnvelope } from './document-envelope';
import { ExportBundleWriter } from './export-bundle.writer';
import { ExportSigningKey } from './export-signing-key';

const PROJECT_ROOT = path.resolve(__dirname, '..', '..', '..');

/** Builds a bundle to a file and checks it with the tools a user has: unzip, openssl, node:crypto. */
describe('ExportBundleWriter', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ivs-bundle-'));
  const zipPath = path.join(dir, 'export.zip');
  const key = ExportSigningKey.generate();
  const documentKey = newDocumentKey();
  const passport = Buffer.concat([Buffer.from([0xff, 0xd8, 0xff, 0xe0]), randomBytes(50_000)]);

  beforeAll(async () => {
    const writer = new ExportBundleWriter({ jobId: 'dsr_test', createdAt: new Date('2026-11-23T12:00:00Z'), signingKey: key, documentKey });
    const written = pipeline(writer.output, fs.createWriteStream(zipPath));
    await writer.addJson('profile.json', { display_name: 'Ada', handle: 'ada' });
    async function* posts() {
      for (let i = 0; i < 1000; i++) yield { id: `p${i}`, text: `post ${i}` };
    }
    await writer.addNdjson('posts.ndjson', posts());
    await writer.addNdjson('comments.ndjson', (async function* () {})());
    await writer.addDocument('art_1', 'jpg', 'image/jpeg', passport);
    await writer.finish();
    await written;
  });
  afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

  const unzipped = () => {
    const out = path.join(dir, 'x');
    if (!fs.existsSync(out)) execFileSync('unzip', ['-q', zipPath, '-d', out]);
    return out;
  };

  it('is a zip that unzip -t finds intact, with every entry and the manifest', () => {
    const test = spawnSync('unzip', ['-t', zipPath], { encoding: 'utf8' });
    expect(test.status).toBe(0);
    expect(test.stdout).toContain('No errors detected');
    const names = fs.readdirSync(unzipped(), { recursive: true }).map(String).sort();
    expect(names).toEqual(['comments.ndjson', 'documents', 'documents/art_1.jpg', 'manifest.json', 'manifest.sig', 'posts.ndjson', 'profile.json']);
    expect(fs.readFileSync(path.join(unzipped(), 'posts.ndjson'), 'utf8').trim().split('\n')).toHaveLength(1000);
    expect(fs.readFileSync(path.join(unzipped(), 'comments.ndjson'), 'utf8')).toBe('');
  });

  it('lists the sha256 of every entry in the manifest, and each matches the bytes', () => {
    const manifest = JSON.parse(fs.readFileSync(path.join(unzipped(), 'manifest.json'), 'utf8'));
    expect(manifest.entries.map((e: { name: string }) => e.name)).toEqual(['profile.json', 'posts.ndjson', 'comments.ndjson', 'documents/art_1.jpg']);
    for (const e of manifest.entries) {
      const bytes = fs.readFileSync(path.join(unzipped(), e.name));
      expect(createHash('sha256').update(bytes).digest('hex')).toBe(e.sha256);
    }
    expect(manifest.key_id).toBe(key.kid);
  });

  it('signs the manifest so that openssl verifies it with the published public key, and not a changed manifest', () => {
    const [header, payload, sig] = fs.readFileSync(path.join(unzipped(), 'manifest.sig'), 'ascii').trim().split('.');
    expect(Buffer.from(payload, 'base64url').equals(fs.readFileSync(path.join(unzipped(), 'manifest.json')))).toBe(true);
    // The JWK's x is the raw 32-byte key; the SubjectPublicKeyInfo DER of Ed25519 is a fixed 12-byte prefix and x.
    const x = Buffer.from(key.jwks().keys[0].x, 'base64url');
    const der = Buffer.concat([Buffer.from('302a300506032b6570032100', 'hex'), x]);
    fs.writeFileSync(path.join(dir, 'pub.pem'), `-----BEGIN PUBLIC KEY-----\n${der.toString('base64')}\n-----END PUBLIC KEY-----\n`);
    fs.writeFileSync(path.join(dir, 'input'), `${header}.${payload}`);
    fs.writeFileSync(path.join(dir, 'sig.bin'), Buffer.from(sig, 'base64url'));
    const verify = (input: string) =>
      spawnSync('openssl', ['pkeyutl', '-verify', '-pubin', '-inkey', path.join(dir, 'pub.pem'), '-rawin', '-in', input, '-sigfile', path.join(dir, 'sig.bin')], { encoding: 'utf8' });
    const good = verify(path.join(dir, 'input'));
    expect(good.stdout).toContain('Signature Verified Successfully');
    fs.writeFileSync(path.join(dir, 'tampered'), `${header}.${payload.slice(0, -2)}AA`);
    expect(verify(path.join(dir, 'tampered')).status).not.toBe(0);
  });

  it('encrypts each document: it opens with the export key, not without it, and is not stored in clear', () => {
    const sealed = fs.readFileSync(path.join(unzipped(), 'documents/art_1.jpg'));
    expect(sealed.includes(passport.subarray(0, 64))).toBe(false);
    expect(openEnvelope(documentKey, sealed).equals(passport)).toBe(true);
    expect(() => openEnvelope(newDocumentKey(), sealed)).toThrow();
  });

  it('passes the node:crypto verifier of examples/ (signature, every sha256, the document decrypted)', () => {
    fs.writeFileSync(path.join(dir, 'jwks.json'), JSON.stringify(key.jwks()));
    const out = execFileSync(process.execPath, [path.join(PROJECT_ROOT, 'examples/verify-export.mjs'), unzipped(), path.join(dir, 'jwks.json'), documentKey.toString('base64'), path.join(dir, 'docs')], { encoding: 'utf8' });
    expect(out).toContain('bundle verified');
    expect(fs.readFileSync(path.join(dir, 'docs', 'art_1.jpg')).equals(passport)).toBe(true);
    const wrongKey = spawnSync(process.execPath, [path.join(PROJECT_ROOT, 'examples/verify-export.mjs'), unzipped(), path.join(dir, 'jwks.json'), newDocumentKey().toString('base64'), path.join(dir, 'docs2')], { encoding: 'utf8' });
    expect(wrongKey.status).not.toBe(0);
  });
});
