import { CommandApdu, decodeResponse, encodeCommand, ResponseApdu, SW_END_OF_FILE, SW_OK } from './apdu';
import { performBac } from './bac';
import { PaceInfo, paceInfos, performPace, supportedPace } from './pace';
import { concat } from './bytes';
import { ChipReaderError, smFailure, unsupportedChip } from './errors';
import { assertAllowed, DATA_GROUPS_READ, DG_TAG, EMRTD_AID, LdsFileName, SFI } from './lds-files';
import { MrzKey } from './mrz-key';
import { SecureMessaging } from './secure-messaging';
import { readTlvHeader, tlvChildren } from './tlv';
import { ChipTransport } from './transport';

export type ReadProgress = { file: LdsFileName; bytesRead: number; totalBytes: number };

export type ReadOptions = {
  mrz: MrzKey;
  onProgress?: (progress: ReadProgress) => void;
  /** Random bytes for BAC's RND.IFD and K.IFD. Default: globalThis.crypto.getRandomValues (React Native: react-native-get-random-values). */
  random?: (n: number) => Uint8Array;
  /** Largest extended-length read, in plaintext bytes (the chip's buffer limits it). Default 32,767. */
  maxExtendedRead?: number;
};

export type PassportFiles = {
  com: Uint8Array;
  sod: Uint8Array;
  /** By data group number: 1 and 2, plus 14 and 15 when EF.COM lists them. Never 3 or 4. */
  dataGroups: Map<number, Uint8Array>;
  /** PACE when EF.CardAccess offers the suite this reader runs (ECDH generic mapping, P-256, AES-128), else BAC. */
  accessControl: 'BAC' | 'PACE';
  /** APDUs sent, in total and per phase, and whether extended length was used. */
  stats: { apdus: number; apdusForFiles: Partial<Record<LdsFileName, number>>; extendedLength: boolean };
};

const HEADER_READ = 8;
/** Largest offset a READ BINARY (B0) P1-P2 carries after an SFI selection. */
const MAX_B0_OFFSET = 0x7fff;

const defaultRandom = (n: number): Uint8Array => {
  const c = (globalThis as { crypto?: { getRandomValues?: (a: Uint8Array) => Uint8Array } }).crypto;
  if (!c?.getRandomValues) throw new Error('no crypto.getRandomValues: install react-native-get-random-values or pass `random`');
  return c.getRandomValues(new Uint8Array(n));
};

/**
 * Reads an eMRTD (ICAO 9303): SELECT the eMRTD application, BAC, then under secure messaging
 * EF.COM, EF.SOD, DG1, DG2 and DG14/DG15 when EF.COM lists them. Files are read by short file
 * identifier: an 8-byte first read gives the TLV length, then whole chunks (extended length when
 * the phone and chip allow it, else the largest short read secure messaging fits in 256 bytes).
 */
export async function readPassport(transport: ChipTransport, options: ReadOptions): Promise<PassportFiles> {
  const reader = new PassportReader(transport, options);
  return reader.read();
}

class PassportReader {
  private sm!: SecureMessaging;
  private apdus = 0;
  /** undefined: EF.CardAccess not read yet; null: no PACE suite this reader runs. */
  private pace: PaceInfo | null | undefined;
  /** undefined: not tried yet (auto). */
  private extended: boolean | undefined;

  constructor(
    private readonly transport: ChipTransport,
    private readonly options: ReadOptions,
  ) {
    this.extended = transport.extendedLengthSupported === false ? false : undefined;
  }

  async read(): Promise<PassportFiles> {
    await this.openSession();
    const apdusForFiles: PassportFiles['stats']['apdusForFiles'] = {};
    const counted = async (name: LdsFileName): Promise<Uint8Array | undefined> => {
      const before = this.apdus;
      const bytes = await this.readFile(name);
      apdusForFiles[name] = this.apdus - before;
      return bytes;
    };
    const com = await counted('EF.COM');
    if (!com) throw unsupportedChip('no EF.COM');
    const listed = listedDataGroups(com);
    const sod = await counted('EF.SOD');
    if (!sod) throw unsupportedChip('no EF.SOD');
    const dataGroups = new Map<number, Uint8Array>();
    for (const n of DATA_GROUPS_READ) {
      if (!listed.has(n) && n !== 1) continue;
      const name = `DG${n}` as LdsFileName;
      const bytes = await counted(name);
      if (bytes) dataGroups.set(n, bytes);
      else if (n === 1) throw unsupportedChip('no DG1');
    }
    return { com, sod, dataGroups, accessControl: this.pace ? 'PACE' : 'BAC', stats: { apdus: this.apdus, apdusForFiles, extendedLength: this.extended === true } };
  }

  /** Access control, then the eMRTD application selected: PACE (before the SELECT) where offered, else BAC (after it). */
  private async openSession(): Promise<void> {
    const random = this.options.random ?? defaultRandom;
    if (this.pace === undefined) this.pace = await this.readCardAccess();
    if (this.pace) {
      this.sm = await performPace((c) => this.plain(c), this.options.mrz, this.pace, random);
      const selected = await this.secure({ cla: 0x00, ins: 0xa4, p1: 0x04, p2: 0x0c, data: EMRTD_AID });
      if (selected.sw !== SW_OK) throw unsupportedChip('no eMRTD application', selected.sw);
      return;
    }
    const select = await this.plain({ cla: 0x00, ins: 0xa4, p1: 0x04, p2: 0x0c, data: EMRTD_AID });
    if (select.sw !== SW_OK) throw unsupportedChip('no eMRTD application', select.sw);
    this.sm = await performBac((c) => this.plain(c), this.options.mrz, random);
  }

  /** EF.CardAccess (SFI 1C of the master file, readable without access control): the PACE suites the chip offers. */
  private async readCardAccess(): Promise<PaceInfo | null> {
    const r = await this.plain({ cla: 0x00, ins: 0xb0, p1: 0x9c, p2: 0x00, le: 256 });
    if ((r.sw !== SW_OK && r.sw !== SW_END_OF_FILE) || r.data.length === 0) return null;
    try {
      return supportedPace(paceInfos(r.data)) ?? null;
    } catch {
      return null; // an EF.CardAccess this reader cannot parse: BAC
    }
  }

  private async exchange(apdu: Uint8Array): Promise<Uint8Array> {
    this.apdus++;
    try {
      return await this.transport.transceive(apdu);
    } catch (e) {
      if (e instanceof ChipReaderError) throw e;
      throw new ChipReaderError('tag_lost', `the chip stopped answering: ${(e as Error)?.message ?? e}`);
    }
  }

  private async plain(command: CommandApdu): Promise<ResponseApdu> {
    return decodeResponse(await this.exchange(encodeCommand(command)));
  }

  private async secure(command: CommandApdu): Promise<ResponseApdu & { plain?: boolean }> {
    return this.sm.unwrap(await this.exchange(this.sm.wrap(command)));
  }

  /** Largest plaintext a short (Le <= 256) secure-messaging response carries: DO87 + DO99 + DO8E within 256 bytes. */
  private get shortChunk(): number {
    const bs = this.sm.blockSize;
    return Math.floor((256 - 4 - 10 - 4) / bs) * bs - 1;
  }

  private async readBinary(p1: number, p2: number, length: number, extended: boolean): Promise<ResponseApdu & { plain?: boolean }> {
    return this.secure({ cla: 0x00, ins: 0xb0, p1, p2, le: length, extended });
  }

  private async readFile(name: LdsFileName): Promise<Uint8Array | undefined> {
    const sfi = SFI[name];
    assertAllowed(sfi);
    const first = await this.readBinary(0x80 | sfi, 0, HEADER_READ, false);
    if (first.sw === 0x6a82) {
      if (first.plain) await this.openSession(); // the chip dropped secure messaging with its error
      return undefined;
    }
    if (first.sw !== SW_OK && first.sw !== SW_END_OF_FILE) throw this.statusError(first, `reading ${name}`);
    const tlv = readTlvHeader(first.data);
    if (!tlv) throw unsupportedChip(`${name} does not start with a TLV`);
    const total = tlv.headerLength + tlv.length;
    let file = first.data.subarray(0, Math.min(total, first.data.length));
    this.options.onProgress?.({ file: name, bytesRead: file.length, totalBytes: total });
    while (file.length < total) {
      const offset = file.length;
      if (offset > MAX_B0_OFFSET) throw unsupportedChip(`${name} is larger than 32 KiB (odd-INS READ BINARY is not supported)`);
      const chunk = await this.readChunk(offset, total - offset);
      if (chunk.length === 0) throw smFailure(`${name}: the chip returned no data at offset ${offset}`);
      file = concat(file, chunk.subarray(0, total - offset));
      this.options.onProgress?.({ file: name, bytesRead: file.length, totalBytes: total });
    }
    return file;
  }

  private async readChunk(offset: number, remaining: number): Promise<Uint8Array> {
    const p1 = (offset >> 8) & 0x7f;
    const p2 = offset & 0xff;
    const short = Math.min(remaining, this.shortChunk);
    if (this.extended !== false && remaining > this.shortChunk) {
      const length = Math.min(remaining, this.options.maxExtendedRead ?? 0x7fff);
      const r = await this.readBinary(p1, p2, length, true);
      if (r.sw === SW_OK || r.sw === SW_END_OF_FILE) {
        this.extended = true;
        return r.data;
      }
      if (this.extended === true) throw this.statusError(r, 'extended READ BINARY');
      // First try refused (6700 wrong length and kin): short reads from now on, in a new session if the chip ended this one.
      this.extended = false;
      if (r.plain) await this.openSession();
    }
    const r = await this.readBinary(p1, p2, short, false);
    if (r.sw !== SW_OK && r.sw !== SW_END_OF_FILE) throw this.statusError(r, 'READ BINARY');
    return r.data;
  }

  private statusError(r: ResponseApdu & { plain?: boolean }, what: string): ChipReaderError {
    const sw = r.sw.toString(16).toUpperCase();
    if (r.plain) return smFailure(`${what}: the chip ended secure messaging (status ${sw})`, r.sw);
    return unsupportedChip(`${what} answered ${sw}`, r.sw);
  }
}

/** The data group numbers EF.COM lists in its tag list (5C). */
export function listedDataGroups(com: Uint8Array): Set<number> {
  const out = new Set<number>();
  const top = readTlvHeader(com);
  if (!top || top.tag !== 0x60) throw unsupportedChip('EF.COM is not tag 60');
  for (const { tag, value } of tlvChildren(com.subarray(top.headerLength, top.headerLength + top.length))) {
    if (tag === 0x5c) for (const t of value) if (DG_TAG[t]) out.add(DG_TAG[t]);
  }
  return out;
}
