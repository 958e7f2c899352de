import { X509Certificate } from 'node:crypto';
import { cborDecode, cborEncode } from '@animo-id/mdoc';
import { freshCertificateAuthority } from '../../test/helpers/test-pki';
import { buildVical } from '../../test/helpers/vical-builder';
import { readVical, VicalError } from './vical';

/** A VICAL (ISO/IEC 18013-5 Annex C, AAMVA DTS) made with the library's COSE_Sign1, read back and attacked. */
describe('readVical', () => {
  const root = freshCertificateAuthority('Test VICAL Root');
  const anchor = new X509Certificate(root.certificatePem);
  const iacas = [freshCertificateAuthority('State A IACA'), freshCertificateAuthority('State B IACA')];
  // The signer is issued as each VICAL is built (valid from that second): read at the time of reading.
  const now = (): Date => new Date();

  it('reads the provider and every IACA with its doctypes once the signer chains to the anchor and the signature verifies', () => {
    const vical = readVical(buildVical({ signerCa: root, iacas, provider: 'Test DTS' }), [anchor], now());
    expect(vical).toMatchObject({ provider: 'Test DTS', issueId: 7 });
    expect(vical.iacas.map((i) => i.certificate.fingerprint256)).toEqual(iacas.map((ca) => new X509Certificate(ca.certificatePem).fingerprint256));
    expect(vical.iacas[0]).toMatchObject({ docTypes: ['org.iso.18013.5.1.mDL'], issuingCountry: 'UT' });
  });

  it('reads an untagged COSE_Sign1 the same', () => {
    const tagged = cborDecode(buildVical({ signerCa: root, iacas })) as { getContentForEncoding(): unknown[] };
    expect(readVical(cborEncode(tagged.getContentForEncoding()), [anchor], now()).iacas).toHaveLength(2);
  });

  it('refuses a signer under another root, a changed payload, no anchor, and files that are no VICAL', () => {
    const refused = (bytes: Uint8Array, anchors = [anchor]) => {
      try {
        readVical(bytes, anchors, now());
        return 'accepted';
      } catch (error) {
        expect(error).toBeInstanceOf(VicalError);
        return (error as Error).message;
      }
    };
    expect(refused(buildVical({ signerCa: freshCertificateAuthority('Someone'), iacas }))).toMatch(/^the VICAL signer is not trusted/);
    expect(refused(buildVical({ signerCa: root, iacas, tamper: true }))).toBe('the VICAL signature does not verify');
    expect(refused(buildVical({ signerCa: root, iacas }), [])).toBe('no VICAL signer root was given');
    expect(refused(Buffer.from('not cbor'))).toBe('the file is not a COSE_Sign1 (CBOR)');
    expect(refused(cborEncode(new Map([['certificateInfos', []]])))).toBe('the file is not a COSE_Sign1 (CBOR)');
    expect(refused(buildVical({ signerCa: root, iacas: [] }))).toBe('the VICAL lists no certificateInfos');
    // Expired: the signer's certificate is checked at the time given.
    expect(() => readVical(buildVical({ signerCa: root, iacas }), [anchor], new Date(Date.now() + 20 * 365 * 86_400_000))).toThrow(/not trusted/);
  });
});
