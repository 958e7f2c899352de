import { MrzSummary } from './mrz.parser';

export type VerdictStatus = 'succeeded' | 'failed' | 'not_checked';

/** Why a verdict did not succeed. Codes are stable API: add, never rename. */
export type VerdictReason =
  | 'malformed_sod'
  | 'unsupported_algorithm'
  | 'message_digest_mismatch'
  | 'content_type_mismatch'
  | 'ds_certificate_not_found'
  | 'signature_invalid'
  | 'no_csca_trust_anchor'
  | 'could_not_build_chain'
  | 'ds_certificate_not_valid_at_signing_time'
  | 'csca_not_valid_at_signing_time'
  | 'hash_mismatch'
  | 'data_group_not_in_sod'
  | 'no_data_groups';

export interface Verdict {
  readonly status: VerdictStatus;
  readonly reason?: VerdictReason;
}

/** The three checks of ICAO 9303-11 Passive Authentication, reported separately as JMRTD does. */
export interface PassiveAuthenticationVerdicts {
  /** SOD signature by the Document Signer, including the messageDigest attribute. */
  readonly ds_signature: Verdict;
  /** Document Signer certificate issued by a trusted CSCA and valid at signing time. */
  readonly chain: Verdict;
  /** Every submitted data group hashes to the value the SOD signs. */
  readonly data_group_hashes: Verdict;
}

export type DataGroupStatus = 'match' | 'mismatch' | 'not_in_sod' | 'not_submitted';

export interface DataGroupHashResult {
  readonly number: number;
  /** Lower-case hex; null when the SOD has no hash for this data group. */
  readonly stored_hash: string | null;
  /** Lower-case hex; null when the data group was not submitted or its hash cannot be computed. */
  readonly computed_hash: string | null;
  readonly status: DataGroupStatus;
}

export interface CertificateSummary {
  readonly subject: string;
  readonly issuer: string;
  readonly serial_number: string;
  readonly not_before: string;
  readonly not_after: string;
  readonly fingerprint_sha256: string;
}

/** JSON-safe (ISO strings, hex), so it can be stored and published as is. */
export interface PassiveAuthenticationResult {
  readonly verdicts: PassiveAuthenticationVerdicts;
  readonly data_groups: DataGroupHashResult[];
  /** Submitted data groups the SOD has no hash for: their content is not authenticated. */
  readonly uncovered_data_groups: number[];
  readonly lds: {
    /** eContentType OID: 2.23.136.1.1.1, or a legacy one seen in the wild. */
    readonly content_type: string;
    /** LDSSecurityObject version: 0 (LDS 1.7) or 1 (LDS 1.8). */
    readonly version: number;
    readonly hash_algorithm: string;
    readonly lds_version: string | null;
    readonly unicode_version: string | null;
  };
  readonly signature_algorithm: string;
  /** signingTime from the SOD; null when absent (validity was then judged at `now`). */
  readonly signing_time: string | null;
  /** The instant certificate validity was judged at. */
  readonly validated_at: string;
  readonly document_signer: CertificateSummary | null;
  readonly csca: CertificateSummary | null;
  /**
   * From DG1, only when DG1 was submitted and matches the hash in the SOD. It is authenticated
   * only when all three verdicts succeeded; show it with the check status, not alone.
   */
  readonly mrz: MrzSummary | null;
}
