import { CHIP_GENUINE_STATEMENT } from '../sessions/chip-wording';
import { PassiveAuthenticationVerdicts, Verdict, VerdictReason } from './passive-authentication.types';

export const CHIP_CHECK_NAME = 'chip_passive_authentication';

/** The one wording used when the check passes; API clients may match on it. */
export const CHIP_GENUINE_REASON = CHIP_GENUINE_STATEMENT;

export type ChipCheckStatus = 'pass' | 'fail' | 'error';

export interface ChipCheck {
  readonly name: typeof CHIP_CHECK_NAME;
  readonly status: ChipCheckStatus;
  readonly reason: string;
}

// Wording stays within what Passive Authentication proves: data signed by a trusted issuer key.
// It says nothing about the document's status in the issuing state's own records.
const REASON_TEXT: Record<VerdictReason, string> = {
  malformed_sod: 'the security object could not be parsed',
  unsupported_algorithm: 'an algorithm in the security object is not supported',
  message_digest_mismatch: 'the security object content does not match its signed digest',
  content_type_mismatch: 'the signed content type does not match the security object',
  ds_certificate_not_found: 'the document signer certificate is missing from the security object',
  signature_invalid: 'the document signer signature is invalid',
  no_csca_trust_anchor: 'no trusted country signing CA is known for the document signer',
  could_not_build_chain: 'no trusted country signing CA key verifies the document signer certificate',
  ds_certificate_not_valid_at_signing_time: 'the document signer certificate was not valid at signing time',
  csca_not_valid_at_signing_time: 'the country signing CA certificate was not valid at signing time',
  hash_mismatch: 'a data group does not match its signed hash',
  data_group_not_in_sod: 'a submitted data group is not covered by the security object',
  no_data_groups: 'no data groups were submitted',
};

const LABELS: Record<keyof PassiveAuthenticationVerdicts, string> = {
  ds_signature: 'document signer signature',
  chain: 'certificate chain',
  data_group_hashes: 'data group hashes',
};

/**
 * Folds the three verdicts into the session check. `pass` only when all three succeeded;
 * `error` when nothing failed on evidence but something could not be checked (an unsupported
 * algorithm counts as such); otherwise `fail`.
 */
export function chipCheckFromVerdicts(verdicts: PassiveAuthenticationVerdicts): ChipCheck {
  const entries = Object.entries(verdicts) as [keyof PassiveAuthenticationVerdicts, Verdict][];
  const problems = entries.filter(([, verdict]) => verdict.status !== 'succeeded');
  if (problems.length === 0) return { name: CHIP_CHECK_NAME, status: 'pass', reason: CHIP_GENUINE_REASON };

  const failedOnEvidence = problems.some(([, v]) => v.status === 'failed' && v.reason !== 'unsupported_algorithm');
  const reason = problems
    .map(([key, v]) => `${LABELS[key]} ${v.status === 'failed' ? 'failed' : 'not checked'}: ${v.reason ? REASON_TEXT[v.reason] : 'no reason given'}`)
    .join('; ');
  return { name: CHIP_CHECK_NAME, status: failedOnEvidence ? 'fail' : 'error', reason };
}
