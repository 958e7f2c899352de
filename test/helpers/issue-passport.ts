import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { buildMrz } from '../../bench/checks/mrz-lines';
import type { MrzFields } from '../../src/checks/check-providers';

/**
 * Issues a test passport chip as a state would, with OpenSSL (as the shared synthetic vectors were
 * made): a fresh P-256 CSCA, a document signer it certifies, DG1 holding `fields`' MRZ, the given DG2,
 * and an EF.SOD (CMS SignedData, eContentType id-icao-ldsSecurityObject) over their SHA-256 hashes.
 * The keys live in a temporary directory removed at once; the CSCA certificate is returned to be trusted.
 * For a live T5 decision: the shared vectors' DG1 is the ICAO specimen, expired in 2012, which the live
 * document check refuses before the chip check runs.
 */

const der = (tag: number, value: Buffer): Buffer => {
  const n = value.length;
  const len = n < 0x80 ? [n] : n < 0x100 ? [0x81, n] : [0x82, n >> 8, n & 0xff];
  return Buffer.concat([Buffer.from([tag, ...len]), value]);
};
const seq = (...parts: Buffer[]) => der(0x30, Buffer.concat(parts));
const int = (n: number) => der(0x02, Buffer.from([n]));
const SHA256_OID = Buffer.from('0609608648016503040201', 'hex');

export type IssuedPassport = { dg1: Buffer; dg2: Buffer; sod: Buffer; cscaDer: Buffer; mrz: string[] };

export function issuePassport(fields: MrzFields, dg2: Buffer): IssuedPassport {
  const mrz = buildMrz(fields);
  const mrzBytes = Buffer.from(mrz.join(''), 'ascii');
  const dg1 = der(0x61, Buffer.concat([Buffer.from([0x5f, 0x1f, mrzBytes.length]), mrzBytes]));
  const hash = (b: Buffer) => der(0x04, createHash('sha256').update(b).digest());
  const lds = seq(int(0), seq(SHA256_OID, Buffer.from([0x05, 0x00])), seq(seq(int(1), hash(dg1)), seq(int(2), hash(dg2))));

  const dir = mkdtempSync(path.join(tmpdir(), 'passport-'));
  const at = (f: string) => path.join(dir, f);
  const openssl = (...args: string[]) => execFileSync('openssl', args, { cwd: dir, stdio: ['ignore', 'pipe', 'pipe'] });
  try {
    writeFileSync(at('lds.der'), lds);
    writeFileSync(at('ds.ext'), 'keyUsage=critical,digitalSignature\nauthorityKeyIdentifier=keyid\nsubjectKeyIdentifier=hash\n');
    openssl('ecparam', '-name', 'prime256v1', '-genkey', '-noout', '-out', 'csca.key');
    openssl('req', '-x509', '-new', '-key', 'csca.key', '-subj', '/C=NL/O=Test Authority/CN=CSCA chip-reader e2e test', '-days', '3650', '-sha256',
      '-addext', 'basicConstraints=critical,CA:TRUE', '-addext', 'keyUsage=critical,keyCertSign,cRLSign', '-addext', 'subjectKeyIdentifier=hash', '-out', 'csca.pem');
    openssl('ecparam', '-name', 'prime256v1', '-genkey', '-noout', '-out', 'ds.key');
    openssl('req', '-new', '-key', 'ds.key', '-subj', '/C=NL/O=Test Authority/CN=DS chip-reader e2e test', '-out', 'ds.csr');
    openssl('x509', '-req', '-in', 'ds.csr', '-CA', 'csca.pem', '-CAkey', 'csca.key', '-CAcreateserial', '-days', '365', '-sha256', '-extfile', 'ds.ext', '-out', 'ds.pem');
    openssl('cms', '-sign', '-binary', '-nodetach', '-nosmimecap', '-econtent_type', '2.23.136.1.1.1', '-md', 'sha256',
      '-in', 'lds.der', '-signer', 'ds.pem', '-inkey', 'ds.key', '-outform', 'DER', '-out', 'sod.p7');
    openssl('x509', '-in', 'csca.pem', '-outform', 'DER', '-out', 'csca.der');
    return { dg1, dg2, sod: der(0x77, readFileSync(at('sod.p7'))), cscaDer: readFileSync(at('csca.der')), mrz };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
