#!/usr/bin/env node
// Verifies an unpacked data-export bundle with node:crypto only (docs/data-rights.md, "Verifying a bundle").
//   unzip -q export.zip -d export/ && curl -s <base>/v1/.well-known/export-keys > jwks.json
//   node examples/verify-export.mjs export/ jwks.json [document-key-base64 out-dir]
// With a document key it also decrypts every documents/* entry into out-dir.
import { createDecipheriv, createHash, createPublicKey, verify } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';

const [dir, jwksFile, keyB64, outDir] = process.argv.slice(2);
if (!dir || !jwksFile) {
  console.error('usage: verify-export.mjs <unzipped-dir> <jwks.json> [document-key-base64 out-dir]');
  process.exit(2);
}
const fail = (msg) => {
  console.error(`FAIL ${msg}`);
  process.exit(1);
};

const manifestBytes = fs.readFileSync(path.join(dir, 'manifest.json'));
const [header, payload, signature] = fs.readFileSync(path.join(dir, 'manifest.sig'), 'ascii').trim().split('.');
const { alg, kid } = JSON.parse(Buffer.from(header, 'base64url').toString('utf8'));
if (alg !== 'EdDSA') fail(`unexpected alg ${alg}`);
const jwk = JSON.parse(fs.readFileSync(jwksFile, 'utf8')).keys.find((k) => k.kid === kid);
if (!jwk) fail(`no key ${kid} in the JWKS`);
const signed = verify(null, Buffer.from(`${header}.${payload}`, 'ascii'), createPublicKey({ key: jwk, format: 'jwk' }), Buffer.from(signature, 'base64url'));
if (!signed) fail('manifest.sig does not verify');
if (!Buffer.from(payload, 'base64url').equals(manifestBytes)) fail('manifest.sig signs another manifest');
console.log(`ok   manifest.sig (key ${kid})`);

const manifest = JSON.parse(manifestBytes.toString('utf8'));
for (const entry of manifest.entries) {
  const bytes = fs.readFileSync(path.join(dir, entry.name));
  const sha256 = createHash('sha256').update(bytes).digest('hex');
  if (sha256 !== entry.sha256 || bytes.length !== entry.size) fail(`${entry.name}: sha256 or size differs`);
  console.log(`ok   ${entry.name}`);
}

if (keyB64 && outDir) {
  const key = Buffer.from(keyB64, 'base64');
  fs.mkdirSync(outDir, { recursive: true });
  for (const doc of manifest.documents.items) {
    const env = fs.readFileSync(path.join(dir, doc.name));
    const decipher = createDecipheriv('aes-256-gcm', key, env.subarray(0, 12));
    decipher.setAuthTag(env.subarray(env.length - 16));
    const plain = Buffer.concat([decipher.update(env.subarray(12, env.length - 16)), decipher.final()]);
    if (createHash('sha256').update(plain).digest('hex') !== doc.plaintext_sha256) fail(`${doc.name}: decrypted bytes differ`);
    fs.writeFileSync(path.join(outDir, path.basename(doc.name)), plain);
    console.log(`ok   ${doc.name} decrypted`);
  }
}
console.log('bundle verified');
