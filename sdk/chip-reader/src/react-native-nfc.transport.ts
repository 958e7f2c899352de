import type { ChipTransport } from './transport';

/**
 * The ChipTransport over `react-native-nfc-manager` (v3): IsoDep on Android, NFCTagReaderSession
 * ISO 7816 on iOS (the library maps `NfcTech.IsoDep` and `isoDepHandler` to both).
 *
 * The library is a peer dependency of the app, not installed in this repository (it needs
 * react-native): `NfcManagerLike` is the part of its API this file uses, so the transport is
 * typechecked here against that shape. An app passes the library's default export:
 *
 *   import NfcManager, { NfcTech } from 'react-native-nfc-manager';
 *   const transport = await openIsoDep(NfcManager, NfcTech.IsoDep, 'Hold your phone on the passport');
 *   try { ... readPassport(transport, ...) } finally { await transport.close(); }
 */
export interface NfcManagerLike {
  start(): Promise<void>;
  requestTechnology(tech: string | string[], options?: { alertMessage?: string }): Promise<unknown>;
  cancelTechnologyRequest(options?: { throwOnError?: boolean }): Promise<void>;
  isoDepHandler: { transceive(bytes: number[]): Promise<number[]> };
  setAlertMessageIOS?(message: string): Promise<void>;
}

export type NfcChipTransport = ChipTransport & {
  /** iOS shows this in the system NFC sheet (progress, say); a no-op on Android. */
  say(message: string): Promise<void>;
  close(): Promise<void>;
};

export async function openIsoDep(nfc: NfcManagerLike, isoDepTech: string, alertMessage?: string): Promise<NfcChipTransport> {
  await nfc.start();
  await nfc.requestTechnology(isoDepTech, alertMessage ? { alertMessage } : undefined);
  return {
    // Left unset: the reader tries extended length once and falls back to short reads.
    async transceive(apdu: Uint8Array): Promise<Uint8Array> {
      // A thrown error here (tag moved away, session timed out) becomes the reader's `tag_lost`.
      return Uint8Array.from(await nfc.isoDepHandler.transceive(Array.from(apdu)));
    },
    async say(message: string): Promise<void> {
      await nfc.setAlertMessageIOS?.(message);
    },
    async close(): Promise<void> {
      await nfc.cancelTechnologyRequest({ throwOnError: false }).catch(() => undefined);
    },
  };
}
