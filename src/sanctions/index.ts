/** Public surface of the sanctions-screening engine (pure domain: no database, no HTTP). */
export * from '../../entities/list-snapshot.document';
export * from './sanctions.model';
export { SanctionsLoadError, type SanctionsLoadPosition } from './sanctions-load.error';
export { loadList, detectFormat, type ListInput, type OfacCsvFiles } from './sanctions-list.loader';
export { SanctionsIndex, WEAK_ALIAS_FACTOR, SINGLE_PART_FACTOR, type ScreenOptions } from './sanctions-index';
export { validateScreeningQuery, ScreeningValidationError, DEFAULT_SCREENING_THRESHOLD, MAX_NAME_LENGTH, type ValidationResult } from './screening-query';
export { toIsoAlpha2, isIsoAlpha2 } from './countries';
