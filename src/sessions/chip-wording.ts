/**
 * The specification's permitted wording for T5, exactly (its tier table): the passing chip check's
 * `reason` and the chip block's `statement` carry it, and every page a person reads shows it as is.
 * It stays within what Passive Authentication proves (data signed by a trusted issuer key) and claims
 * nothing about the issuing state's records (docs/decisions.md, D5).
 */
export const CHIP_GENUINE_STATEMENT = 'Document is genuine and unmodified per ICAO 9303 Passive Authentication.';
