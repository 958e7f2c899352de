import { createPrivateKey, sign, X509Certificate } from 'node:crypto';
import { cborDecode, cborEncode } from '@animo-id/mdoc';
import { issueSigner, type CertificateAuthority } from './test-pki';

/**
 * A VICAL as AAMVA's Digital Trust Service publishes one (ISO/IEC 18013-5 Annex C): a COSE_Sign1 (tag 18)
 * signed by a VICAL signer whose certificate is in the `x5chain` header, over a CBOR map listing IACA
 * certificates with their doctypes. Built with @animo-id/mdoc's COSE_Sign1 and CBOR encoder; `tamper`
 * changes a byte of the payload after signing.
 */

type Sign1Class = {
  create(protectedHeaders: Map<number, unknown>, unprotectedHeaders: Map<number, unknown>, payload: Uint8Array): {
    getRawSigningData(): { data: Uint8Array; alg: string };
    signature: Uint8Array;
  };
};

/** The library's COSE_Sign1 class, as its decoder hands it out for tag 18 (the class itself is not exported). */
const Sign1 = (cborDecode(Buffer.from('d28443a10126a104420102420304420506', 'hex')) as object).constructor as unknown as Sign1Class;

export function buildVical(input: {
  signerCa: CertificateAuthority;
  iacas: readonly CertificateAuthority[];
  provider?: string;
  docType?: string;
  tamper?: boolean;
}): Uint8Array {
  const signer = issueSigner(input.signerCa, 'sd_jwt_vc_issuer');
  const payload = cborEncode(
    new Map<string, unknown>([
      ['version', '1.0'],
      ['vicalProvider', input.provider ?? 'Test Digital Trust Service'],
      ['date', new Date()],
      ['vicalIssueID', 7],
      [
        'certificateInfos',
        input.iacas.map((ca) => {
          const certificate = new X509Certificate(ca.certificatePem);
          return new Map<string, unknown>([
            ['certificate', new Uint8Array(certificate.raw)],
            ['serialNumber', Buffer.from(certificate.serialNumber, 'hex')],
            ['ski', new Uint8Array(20)],
            ['docType', [input.docType ?? 'org.iso.18013.5.1.mDL']],
            ['issuingCountry', 'UT'],
          ]);
        }),
      ],
    ]),
  );
  const sign1 = Sign1.create(new Map([[1, -7]]), new Map<number, unknown>([[33, signer.certificateDer]]), payload);
  const { data } = sign1.getRawSigningData();
  sign1.signature = sign('sha256', data, { key: createPrivateKey({ key: signer.privateJwk, format: 'jwk' }), dsaEncoding: 'ieee-p1363' });
  const bytes = Buffer.from(cborEncode(sign1));
  if (input.tamper) {
    const at = bytes.indexOf(Buffer.from(input.provider ?? 'Test Digital Trust Service'));
    bytes[at] ^= 0x01;
  }
  return bytes;
}
