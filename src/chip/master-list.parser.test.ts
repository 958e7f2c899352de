import { fixture } from '../../test/fixtures/icao/icao.fixtures';
import { ChipInputError } from './chip.errors';
import { InMemoryCscaTrustStore } from './csca.trust-store';
import { importMasterList, MasterListImport, parseMasterList } from './master-list.parser';
import { verifyPassiveAuthentication } from './passive-authentication.verifier';

const DE_ML = fixture('masterlists', 'DE_ML_2026-05-28-08-28-45.ml');
const DE_ANCHOR = fixture('masterlists', 'DE_ROOT_CA_CSCA07.cer');
const NL_ML = fixture('masterlists', 'NL_ML_2026-07-22.ml');
const NL_ANCHOR = fixture('masterlists', 'NL_ROOT_CA.cer');
const REAL = ['AT', 'AU', 'CN', 'DE', 'FI', 'FR', 'NZ', 'PH', 'UK', 'US'];

function codeOf(action: () => unknown): string | undefined {
  try {
    action();
  } catch (error) {
    if (error instanceof ChipInputError) return error.code;
    throw error;
  }
  return undefined;
}

describe('importMasterList', () => {
  let german: MasterListImport;
  let dutch: MasterListImport;
  beforeAll(() => {
    german = importMasterList(DE_ML, DE_ANCHOR);
    dutch = importMasterList(NL_ML, NL_ANCHOR);
  });

  it('returns every CSCA of the German list once its signature and signer chain verify', () => {
    expect(german.certificates).toHaveLength(588);
    expect(german.rejected).toEqual([]);
    expect(german.signer.subject).toContain('CN=CSCA Master List Signer');
    expect(german.signingTime?.toISOString()).toBe('2026-05-28T06:28:45.000Z');
  });

  it('returns every CSCA of the Dutch list', () => {
    expect(dutch.certificates).toHaveLength(411);
    expect(dutch.signer.subject).toContain('CN=Masterlist Signer NL');
  });

  it('describes each CSCA by subject, key identifier, validity and fingerprint', () => {
    const certificate = german.certificates[0];
    expect(certificate.der.length).toBeGreaterThan(100);
    expect(certificate.subject).toMatch(/C=/);
    expect(certificate.fingerprintSha256).toMatch(/^[0-9a-f]{64}$/);
    expect(certificate.notBefore.getTime()).toBeLessThan(certificate.notAfter.getTime());
    expect(german.certificates.filter((c) => c.subjectKeyIdentifier !== null).length).toBeGreaterThan(500);
  });

  it.each([
    ['German', () => german],
    ['Dutch', () => dutch],
  ])('lets the %s list anchor the chain of all ten real passports', async (_name, list) => {
    const store = new InMemoryCscaTrustStore(list().certificates);
    for (const country of REAL) {
      const result = await verifyPassiveAuthentication({
        sod: fixture('real_sods_gmrtd', country, 'EF_SOD.bin'),
        dataGroups: new Map(),
        trustStore: store,
        now: new Date('2026-11-22T12:00:00Z'),
      });
      expect([country, result.verdicts.chain]).toEqual([country, { status: 'succeeded' }]);
    }
  });

  it('refuses a list whose signer was not issued by the given anchor, before trusting anything in it', () => {
    expect(codeOf(() => parseMasterList(NL_ML, DE_ANCHOR))).toBe('untrusted_master_list_signer');
  });

  it('refuses a list whose content was altered after signing', () => {
    const tampered = Buffer.from(NL_ML);
    tampered[200_000] ^= 0x01; // inside the certList
    expect(codeOf(() => parseMasterList(tampered, NL_ANCHOR))).toBe('master_list_signature_invalid');
  });

  it('refuses a list whose signature was altered', () => {
    const tampered = Buffer.from(NL_ML);
    tampered[tampered.length - 10] ^= 0x01; // the SignerInfo signature ends the file
    expect(codeOf(() => parseMasterList(tampered, NL_ANCHOR))).toBe('master_list_signature_invalid');
  });

  it("judges the signer's validity at the list's signingTime, not at the given now", () => {
    expect(codeOf(() => parseMasterList(NL_ML, NL_ANCHOR, { now: new Date('1990-01-01T00:00:00Z') }))).toBeUndefined();
  });

  it('refuses a CMS SignedData that is not a master list', () => {
    const sod = fixture('synthetic', 'rsa_pkcs1v15_sha256', 'EF_SOD.bin').subarray(4);
    expect(codeOf(() => parseMasterList(sod, NL_ANCHOR))).toBe('malformed_master_list');
  });

  it('refuses bytes that are not CMS at all, and a truncated list', () => {
    expect(codeOf(() => parseMasterList(Buffer.from('not a master list'), NL_ANCHOR))).toBe('malformed_master_list');
    expect(codeOf(() => parseMasterList(NL_ML.subarray(0, 1000), NL_ANCHOR))).toBe('malformed_master_list');
  });

  it('refuses an anchor that is not a certificate', () => {
    expect(codeOf(() => parseMasterList(NL_ML, Buffer.from('nope')))).toBe('malformed_certificate');
  });
});
