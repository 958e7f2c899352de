import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { verifyMdocPresentation, type MdocVerificationInput } from './mdoc-verifier';
import { wrapSessionTranscript } from './session-transcript';

/** ISO/IEC 18013-5:2021 Annex D, copied into test/fixtures/digital-id (see PROVENANCE.md there). */
const annexD = join(__dirname, '../../test/fixtures/digital-id/iso-18013-5-annex-d');
const hex = (name: string) => new Uint8Array(Buffer.from(readFileSync(join(annexD, name), 'utf8').trim(), 'hex'));
const readerKey = JSON.parse(readFileSync(join(annexD, 'ephemeral-reader-key.json'), 'utf8')) as Record<string, string>;
const b64u = (h: string) => Buffer.from(h, 'hex').toString('base64url');

const MDL_ELEMENTS = ['family_name', 'issue_date', 'expiry_date', 'document_number', 'portrait', 'driving_privileges'];

function annexDInput(overrides: Partial<MdocVerificationInput> = {}): MdocVerificationInput {
  return {
    deviceResponse: hex('device-response.hex'),
    sessionTranscriptBytes: wrapSessionTranscript(hex('session-transcript.hex')),
    ephemeralReaderKey: { kty: 'EC', crv: 'P-256', x: b64u(readerKey.x_hex), y: b64u(readerKey.y_hex), d: b64u(readerKey.d_hex) },
    trustedRoots: [hex('iaca.hex')],
    // The example was signed on 2020-10-01 and is valid for a year.
    now: new Date('2021-03-01T00:00:00Z'),
    requested: [{ format: 'mso_mdoc', credentialType: 'org.iso.18013.5.1.mDL', namespace: 'org.iso.18013.5.1', elements: MDL_ELEMENTS }],
    ...overrides,
  };
}

async function reasonOf(promise: Promise<unknown>): Promise<string> {
  try {
    await promise;
  } catch (error) {
    return (error as { reason?: string }).reason ?? String(error);
  }
  return 'accepted';
}

describe('verifyMdocPresentation with the ISO 18013-5 Annex D example', () => {
  it('verifies the example DeviceResponse against its IACA, including the device MAC', async () => {
    const result = await verifyMdocPresentation(annexDInput());
    expect(result.format).toBe('mso_mdoc');
    expect(result.credentialType).toBe('org.iso.18013.5.1.mDL');
    expect(result.issuer).toEqual({ name: 'utopia ds', country: 'US' });
    expect(result.claims.family_name).toBe('Doe');
    expect(result.claims.document_number).toBe('123456789');
    expect(result.claims.expiry_date).toBe('2024-10-20');
    expect(result.claims.portrait).toBeInstanceOf(Uint8Array);
    expect(result.verified).toEqual(['doctype', 'issuer_chain', 'issuer_signature', 'validity', 'digests', 'requested_elements_only', 'device_auth']);
  });

  it('refuses it without the IACA among the trusted roots', async () => {
    expect(await reasonOf(verifyMdocPresentation(annexDInput({ trustedRoots: [] })))).toBe('untrusted_issuer');
  });

  it('refuses it once the document signer certificate has expired', async () => {
    // The signer certificate ends at 2021-10-01T00:00Z, thirteen hours before the MSO does.
    expect(await reasonOf(verifyMdocPresentation(annexDInput({ now: new Date('2021-10-01T06:00:00Z') })))).toBe('issuer_certificate_expired');
  });

  it('refuses it before the document signer certificate is valid', async () => {
    expect(await reasonOf(verifyMdocPresentation(annexDInput({ now: new Date('2020-09-30T00:00:00Z') })))).toBe('issuer_certificate_not_yet_valid');
  });

  it('refuses it over another session transcript', async () => {
    const other = hex('session-transcript.hex');
    other[other.length - 1] ^= 0x01;
    expect(await reasonOf(verifyMdocPresentation(annexDInput({ sessionTranscriptBytes: wrapSessionTranscript(other) })))).toBe('device_auth_invalid');
  });

  it('refuses an element changed after signing', async () => {
    const tampered = hex('device-response.hex');
    const doe = Buffer.from(tampered).indexOf(Buffer.from('63446f65', 'hex')); // tstr "Doe"
    tampered[doe + 1] = 'R'.charCodeAt(0);
    expect(await reasonOf(verifyMdocPresentation(annexDInput({ deviceResponse: tampered })))).toBe('digest_mismatch');
  });

  it('refuses elements that were not requested', async () => {
    const requested = [{ format: 'mso_mdoc' as const, credentialType: 'org.iso.18013.5.1.mDL', namespace: 'org.iso.18013.5.1', elements: ['family_name'] }];
    expect(await reasonOf(verifyMdocPresentation(annexDInput({ requested })))).toBe('element_not_requested');
  });

  it('refuses a doctype that was not requested', async () => {
    const requested = [{ format: 'mso_mdoc' as const, credentialType: 'eu.europa.ec.eudi.pid.1', namespace: 'eu.europa.ec.eudi.pid.1', elements: MDL_ELEMENTS }];
    expect(await reasonOf(verifyMdocPresentation(annexDInput({ requested })))).toBe('unexpected_doctype');
  });

  it('refuses bytes that are not a DeviceResponse', async () => {
    expect(await reasonOf(verifyMdocPresentation(annexDInput({ deviceResponse: new Uint8Array([0xa1, 0x01]) })))).toBe('malformed_presentation');
  });
});
