/** Public surface of the chip (ICAO 9303 Passive Authentication) domain module. */
export { ChipInputError, isChipInputError } from './chip.errors';
export type { ChipErrorCode } from './chip.errors';
export { CHIP_CHECK_NAME, CHIP_GENUINE_REASON, chipCheckFromVerdicts } from './chip-check.factory';
export type { ChipCheck, ChipCheckStatus } from './chip-check.factory';
export { decodeChipSubmission, MAX_DATA_GROUP_BYTES, MAX_SOD_BYTES, MAX_TOTAL_BYTES } from './chip-submission.decoder';
export type { ChipSubmission } from './chip-submission.decoder';
export { distinguishedNameKey, InMemoryCscaTrustStore } from './csca.trust-store';
export type { CscaCertificate, CscaTrustStore, DocumentSignerLookup } from './csca.trust-store';
export { importMasterList, parseMasterList } from './master-list.parser';
export type { MasterListImport, MasterListOptions } from './master-list.parser';
export { maskDocumentNumber, parseMrz } from './mrz.parser';
export type { MrzFormat, MrzSummary } from './mrz.parser';
export type {
  CertificateSummary,
  DataGroupHashResult,
  DataGroupStatus,
  PassiveAuthenticationResult,
  PassiveAuthenticationVerdicts,
  Verdict,
  VerdictReason,
  VerdictStatus,
} from './passive-authentication.types';
export { verifyPassiveAuthentication } from './passive-authentication.verifier';
export type { PassiveAuthenticationInput } from './passive-authentication.verifier';
