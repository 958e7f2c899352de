import { createHash } from 'node:crypto';
import { fixture } from '../../test/fixtures/icao/icao.fixtures';
import { ChipInputError } from './chip.errors';
import { parseSod } from './sod.parser';

function expectMalformed(sod: Buffer): void {
  let caught: unknown;
  try {
    parseSod(sod);
  } catch (error) {
    caught = error;
  }
  expect(caught).toBeInstanceOf(ChipInputError);
  expect((caught as ChipInputError).code).toBe('malformed_sod');
}

/** Deterministic pseudo-random bytes, so a failure can be reproduced. */
function noise(seed: string, length: number): Buffer {
  const chunks: Buffer[] = [];
  let block = Buffer.from(seed);
  while (chunks.length * 32 < length) {
    block = createHash('sha256').update(block).digest();
    chunks.push(block);
  }
  return Buffer.concat(chunks).subarray(0, length);
}

describe('parseSod', () => {
  const sod = fixture('synthetic', 'rsa_pkcs1v15_sha256', 'EF_SOD.bin');

  it('strips the 0x77 wrapper and reads the LDS security object', () => {
    const parsed = parseSod(sod);
    expect(parsed.lds.version).toBe(0);
    expect(parsed.lds.hashName).toBe('sha256');
    expect([...parsed.lds.dataGroupHashes.keys()]).toEqual([1, 2]);
    expect(parsed.signedData.certificates).toHaveLength(1);
  });

  it('accepts a bare ContentInfo sent without the 0x77 wrapper', () => {
    const bare = sod.subarray(4); // 77 82 LL LL
    expect(bare[0]).toBe(0x30);
    expect([...parseSod(bare).lds.dataGroupHashes.keys()]).toEqual([1, 2]);
  });

  it('accepts zero padding after the file, as some readers return it', () => {
    expect(() => parseSod(Buffer.concat([sod, Buffer.alloc(16)]))).not.toThrow();
  });

  it('reads an LDS v1 security object with its version info', () => {
    const parsed = parseSod(fixture('real_sods_gmrtd', 'UK', 'EF_SOD.bin'));
    expect(parsed.lds).toMatchObject({ version: 1, ldsVersion: '0108', unicodeVersion: '040000' });
  });

  it('accepts the id-data eContentType of Chinese passports', () => {
    expect(parseSod(fixture('real_sods_gmrtd', 'CN', 'EF_SOD.bin')).signedData.eContentType).toBe('1.2.840.113549.1.7.1');
  });

  it('reads SODs that use BER indefinite lengths', () => {
    const nz = fixture('real_sods_gmrtd', 'NZ', 'EF_SOD.bin');
    expect(nz.includes(Buffer.from([0x30, 0x80]))).toBe(true);
    expect(parseSod(nz).lds.dataGroupHashes.size).toBe(6);
  });

  it('rejects an empty SOD', () => expectMalformed(Buffer.alloc(0)));
  it('rejects random bytes', () => expectMalformed(noise('random', 1500)));
  it('rejects random bytes behind a plausible 0x77 header', () => expectMalformed(Buffer.concat([Buffer.from([0x77, 0x82, 0x05, 0xdc]), noise('wrapped', 1500)])));
  it('rejects trailing garbage after the file', () => expectMalformed(Buffer.concat([sod, Buffer.from('junk')])));
  it('rejects a CMS SignedData whose content is not an LDS security object', () =>
    expectMalformed(fixture('masterlists', 'NL_ML_2026-07-22.ml')));

  it('rejects every truncation of a valid SOD', () => {
    const unexpected: string[] = [];
    for (let length = 0; length < sod.length; length++) {
      try {
        parseSod(sod.subarray(0, length));
        unexpected.push(`${length}: parsed`);
      } catch (error) {
        if (!(error instanceof ChipInputError) || error.code !== 'malformed_sod') unexpected.push(`${length}: ${String(error)}`);
      }
    }
    expect(unexpected).toEqual([]);
  });

  it('rejects deeply nested input without exhausting the stack', () => {
    const depth = 5000;
    const nested = Buffer.concat([Buffer.from([0x77, 0x80]), Buffer.alloc(depth * 2, Buffer.from([0x30, 0x80]))]);
    expectMalformed(nested);
  });
});
