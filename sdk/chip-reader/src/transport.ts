/** How the reader reaches the chip: one APDU out, one response (data || SW1 SW2) back. */
export interface ChipTransport {
  transceive(apdu: Uint8Array): Promise<Uint8Array>;
  /**
   * Whether the phone's NFC stack carries extended-length APDUs (Android: IsoDep.isExtendedLengthApduSupported).
   * Unset: the reader tries once and falls back to short reads if the chip or phone refuses.
   */
  readonly extendedLengthSupported?: boolean;
}
