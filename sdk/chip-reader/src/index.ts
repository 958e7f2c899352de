/**
 * @idv/chip-reader: reads an ePassport chip (ICAO 9303) and sends it to the verification service.
 * Pure JS (no `node:` built-ins): runs under React Native's Hermes with any ChipTransport.
 */
export { readPassport, listedDataGroups } from './reader';
export type { PassportFiles, ReadOptions, ReadProgress } from './reader';
export type { ChipTransport } from './transport';
export type { MrzKey } from './mrz-key';
export { mrzInformation, bacKeySeed, checkDigit, mrzKeyFromLines } from './mrz-key';
export { ChipReaderError } from './errors';
export type { ChipReaderErrorCode } from './errors';
export { uploadChipFiles, parseHandoffLink } from './upload';
export type { Handoff, UploadOptions } from './upload';
export type { LdsFileName } from './lds-files';
export { openIsoDep } from './react-native-nfc.transport';
export type { NfcManagerLike, NfcChipTransport } from './react-native-nfc.transport';
