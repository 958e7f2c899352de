import { CHIP_GENUINE_REASON, chipCheckFromVerdicts } from './chip-check.factory';
import { PassiveAuthenticationVerdicts, VerdictReason } from './passive-authentication.types';

const ok = { status: 'succeeded' } as const;

describe('chipCheckFromVerdicts', () => {
  it('passes with exactly the agreed wording when all three verdicts succeeded', () => {
    expect(chipCheckFromVerdicts({ ds_signature: ok, chain: ok, data_group_hashes: ok })).toEqual({
      name: 'chip_passive_authentication',
      status: 'pass',
      reason: 'Document is genuine and unmodified per ICAO 9303 Passive Authentication.',
    });
  });

  it.each<[string, PassiveAuthenticationVerdicts]>([
    ['a bad signature', { ds_signature: { status: 'failed', reason: 'signature_invalid' }, chain: ok, data_group_hashes: ok }],
    ['an unknown CSCA', { ds_signature: ok, chain: { status: 'failed', reason: 'no_csca_trust_anchor' }, data_group_hashes: ok }],
    ['a hash mismatch', { ds_signature: ok, chain: ok, data_group_hashes: { status: 'failed', reason: 'hash_mismatch' } }],
  ])('fails on %s, never with the genuine wording', (_case, verdicts) => {
    const check = chipCheckFromVerdicts(verdicts);
    expect(check.status).toBe('fail');
    expect(check.reason).not.toBe(CHIP_GENUINE_REASON);
    expect(check.reason).not.toMatch(/genuine/i);
  });

  it('is an error, not a pass, when something could not be checked', () => {
    const check = chipCheckFromVerdicts({ ds_signature: ok, chain: ok, data_group_hashes: { status: 'not_checked', reason: 'no_data_groups' } });
    expect(check.status).toBe('error');
    expect(check.reason).toBe('data group hashes not checked: no data groups were submitted');
  });

  it('is an error when only an unsupported algorithm stopped the check', () => {
    expect(chipCheckFromVerdicts({ ds_signature: { status: 'failed', reason: 'unsupported_algorithm' }, chain: ok, data_group_hashes: ok }).status).toBe('error');
  });

  it('never claims a check against an issuing state database in any reason', () => {
    const reasons: VerdictReason[] = [
      'malformed_sod', 'unsupported_algorithm', 'message_digest_mismatch', 'content_type_mismatch', 'ds_certificate_not_found',
      'signature_invalid', 'no_csca_trust_anchor', 'could_not_build_chain', 'ds_certificate_not_valid_at_signing_time',
      'csca_not_valid_at_signing_time', 'hash_mismatch', 'data_group_not_in_sod', 'no_data_groups',
    ];
    for (const reason of reasons) {
      const text = chipCheckFromVerdicts({ ds_signature: { status: 'failed', reason }, chain: ok, data_group_hashes: ok }).reason;
      expect(text).not.toMatch(/database|registry|revoked|stolen|lost/i);
      expect(text).not.toMatch(/no reason given/);
    }
  });
});
