import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { verifySdJwtVcPresentation, type SdJwtVcVerificationInput } from './sd-jwt-vc-verifier';

/** RFC 9901 Appendix A.3, the SD-JWT VC example the SD-JWT VC draft shares (test/fixtures/digital-id/PROVENANCE.md). */
const a3 = join(__dirname, '../../test/fixtures/digital-id/rfc9901-a3');
const presentation = readFileSync(join(a3, 'presentation.txt'), 'utf8').trim();
const issuerJwk = JSON.parse(readFileSync(join(a3, 'issuer-key.jwk.json'), 'utf8'));

function exampleInput(overrides: Partial<SdJwtVcVerificationInput> = {}): SdJwtVcVerificationInput {
  return {
    presentation,
    nonce: '1234567890',
    audience: 'https://verifier.example.org',
    trustedRoots: [],
    trustedIssuerKeys: [{ issuer: 'https://pid-issuer.bund.de.example', jwk: issuerJwk }],
    // The example's key-binding JWT was made at iat 1748537244.
    now: new Date((1748537244 + 30) * 1000),
    requested: [{ format: 'dc+sd-jwt', credentialType: 'urn:eudi:pid:de:1', elements: ['age_equal_or_over', 'nationalities'] }],
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

describe('verifySdJwtVcPresentation with the RFC 9901 A.3 SD-JWT VC example', () => {
  it('verifies the example presentation with its issuer key, nonce and audience', async () => {
    const result = await verifySdJwtVcPresentation(exampleInput());
    expect(result.format).toBe('dc+sd-jwt');
    expect(result.credentialType).toBe('urn:eudi:pid:de:1');
    expect(result.issuer.name).toBe('https://pid-issuer.bund.de.example');
    expect(result.claims).toEqual({ nationalities: ['DE'], age_equal_or_over: { '18': true } });
    expect(result.verified).toEqual(['vct', 'issuer_chain', 'issuer_signature', 'validity', 'digests', 'requested_elements_only', 'key_binding']);
  });

  it('refuses it for another nonce', async () => {
    expect(await reasonOf(verifySdJwtVcPresentation(exampleInput({ nonce: 'another' })))).toBe('nonce_mismatch');
  });

  it('refuses it for another audience', async () => {
    expect(await reasonOf(verifySdJwtVcPresentation(exampleInput({ audience: 'https://other.example' })))).toBe('audience_mismatch');
  });

  it('refuses it when the issuer is not trusted', async () => {
    expect(await reasonOf(verifySdJwtVcPresentation(exampleInput({ trustedIssuerKeys: [] })))).toBe('untrusted_issuer');
  });

  it('refuses it once exp has passed', async () => {
    expect(await reasonOf(verifySdJwtVcPresentation(exampleInput({ now: new Date(1883000000 * 1000 + 3_600_000) })))).toBe('credential_expired');
  });

  it('refuses a key-binding JWT made long before', async () => {
    expect(await reasonOf(verifySdJwtVcPresentation(exampleInput({ now: new Date((1748537244 + 3600) * 1000) })))).toBe('key_binding_invalid');
  });

  it('refuses a disclosure the issuer did not sign', async () => {
    const parts = presentation.split('~');
    parts[3] = Buffer.from(JSON.stringify(['lklxF5jMYlGTPUovMNIvCA', 'nationalities', ['FR']])).toString('base64url');
    expect(await reasonOf(verifySdJwtVcPresentation(exampleInput({ presentation: parts.join('~') })))).toBe('digest_mismatch');
  });

  it('refuses claims that were not requested', async () => {
    const requested = [{ format: 'dc+sd-jwt' as const, credentialType: 'urn:eudi:pid:de:1', elements: ['nationalities'] }];
    expect(await reasonOf(verifySdJwtVcPresentation(exampleInput({ requested })))).toBe('element_not_requested');
  });

  it('refuses a presentation without key binding', async () => {
    const withoutKb = presentation.slice(0, presentation.lastIndexOf('~') + 1);
    expect(await reasonOf(verifySdJwtVcPresentation(exampleInput({ presentation: withoutKb })))).toBe('key_binding_missing');
  });

  it('refuses a vct that was not requested', async () => {
    const requested = [{ format: 'dc+sd-jwt' as const, credentialType: 'urn:eudi:pid:1', elements: ['nationalities'] }];
    expect(await reasonOf(verifySdJwtVcPresentation(exampleInput({ requested })))).toBe('unexpected_doctype');
  });

  it('refuses text that is not an SD-JWT', async () => {
    expect(await reasonOf(verifySdJwtVcPresentation(exampleInput({ presentation: 'not-a-jwt' })))).toBe('malformed_presentation');
  });
});
