import { decodeResponse } from '../src/apdu';
import { bacKeys } from '../src/bac';
import { concat, constantTimeEqual, pad, unpad } from '../src/bytes';
import { p256 } from '@noble/curves/p256';
import { bytesToNumberBE } from '@noble/curves/abstract/utils';
import { aesCbcEncrypt } from '../src/aes';
import { retailMac, tdesDecrypt, tdesEncrypt } from '../src/des';
import { deriveKey, ENC, MAC } from '../src/kdf';
import { EMRTD_AID } from '../src/lds-files';
import type { MrzKey } from '../src/mrz-key';
import { authenticationToken, pacePasswordKey } from '../src/pace';
import { aesCipher, SmCipher, tdesCipher } from '../src/secure-messaging';
import { encodeTlv, readTlvHeader, tlvChildren } from '../src/tlv';
import type { ChipTransport } from '../src/transport';

/**
 * A simulated eMRTD chip for the reader's tests: it answers APDUs as ICAO 9303 chips do for BAC and
 * 3DES secure messaging, from real LDS files (the ICAO/BSI test documents copied into fixtures/).
 * With an EF.CardAccess (SFI 1C) it also runs PACE (ECDH generic mapping, P-256) and AES secure messaging.
 * It plays the chip's side itself (checks every command MAC, answers wrong keys with 6300), so the
 * reader is tested against a counterpart, not against its own wrapper. Faults on demand: a bad
 * response MAC, the tag lost in the middle of a file, no extended length.
 */

export type SimulatedChipOptions = {
  /** LDS files by short file identifier (0x1E EF.COM, 0x1D EF.SOD, n for DGn). */
  files: Map<number, Uint8Array>;
  mrz: MrzKey;
  /** Default true. False: an extended-length APDU is answered 6700 in plain and secure messaging ends. */
  extendedLength?: boolean;
  /** Corrupts the MAC of the n-th secure-messaging response (1-based, counted over the chip's life). */
  corruptMacOfResponse?: number;
  /** The tag is lost (every exchange fails from then on) at this READ BINARY of this file. */
  loseTagAt?: { sfi: number; read: number };
  random?: (n: number) => Uint8Array;
};

type Session = { cipher: SmCipher; ssc: Uint8Array };
type PaceRun = { oid: Uint8Array; nonce?: bigint; mapped?: InstanceType<typeof p256.ProjectivePoint>; chipPoint?: Uint8Array; readerPoint?: Uint8Array; ksEnc?: Uint8Array; ksMac?: Uint8Array };

type Command = { cla: number; ins: number; p1: number; p2: number; data: Uint8Array; le?: number; extended: boolean };

const sw = (word: number) => Uint8Array.of(word >> 8, word & 0xff);

function parseCommand(apdu: Uint8Array): Command {
  const [cla, ins, p1, p2] = apdu;
  const body = apdu.subarray(4);
  if (body.length === 0) return { cla, ins, p1, p2, data: new Uint8Array(0), extended: false };
  if (body.length === 1) return { cla, ins, p1, p2, data: new Uint8Array(0), le: body[0] || 256, extended: false };
  if (body[0] === 0 && body.length === 3) return { cla, ins, p1, p2, data: new Uint8Array(0), le: (body[1] << 8 | body[2]) || 65536, extended: true };
  if (body[0] === 0 && body.length > 3) {
    const lc = (body[1] << 8) | body[2];
    const rest = body.subarray(3 + lc);
    return { cla, ins, p1, p2, data: body.subarray(3, 3 + lc), le: rest.length === 2 ? (rest[0] << 8 | rest[1]) || 65536 : undefined, extended: true };
  }
  const lc = body[0];
  const rest = body.subarray(1 + lc);
  return { cla, ins, p1, p2, data: body.subarray(1, 1 + lc), le: rest.length === 1 ? rest[0] || 256 : undefined, extended: false };
}

function increment(ssc: Uint8Array): void {
  for (let i = ssc.length - 1; i >= 0; i--) {
    ssc[i] = (ssc[i] + 1) & 0xff;
    if (ssc[i] !== 0) return;
  }
}

let counter = 0;
const pseudoRandom = (n: number): Uint8Array => Uint8Array.from({ length: n }, () => (counter = (counter * 1103515245 + 12345) >>> 0) >>> 24);

export class SimulatedChip implements ChipTransport {
  /** What the chip saw: every APDU, READ BINARY per SFI, SM responses sent. */
  readonly log = { apdus: 0, readsBySfi: new Map<number, number>(), smResponses: 0, extendedCommands: 0, bytesIn: 0, bytesOut: 0 };
  private appSelected = false;
  private rndIc?: Uint8Array;
  private session?: Session;
  private selected?: number;
  private lost = false;
  private paceRun?: PaceRun;
  private readonly random: (n: number) => Uint8Array;

  constructor(private readonly options: SimulatedChipOptions) {
    this.random = options.random ?? pseudoRandom;
  }

  async transceive(apdu: Uint8Array): Promise<Uint8Array> {
    if (this.lost) throw new Error('Tag was lost.');
    this.log.apdus++;
    this.log.bytesIn += apdu.length;
    const out = this.answer(apdu);
    this.log.bytesOut += out.length;
    return out;
  }

  private answer(apdu: Uint8Array): Uint8Array {
    const c = parseCommand(apdu);
    if (c.extended) this.log.extendedCommands++;
    if ((c.cla & 0x0c) === 0x0c) return this.secure(c);
    this.session = undefined; // a plain command ends secure messaging
    const cardAccess = this.options.files.get(0x1c);
    if (c.ins === 0xb0 && c.p1 === 0x9c) {
      if (!cardAccess) return sw(0x6a82);
      const out = cardAccess.subarray(c.p2, c.p2 + (c.le ?? 256));
      return concat(out, sw(out.length < (c.le ?? 256) ? 0x6282 : 0x9000));
    }
    if (cardAccess && c.ins === 0x22 && c.p1 === 0xc1 && c.p2 === 0xa4) {
      const oid = [...tlvChildren(c.data)].find((d) => d.tag === 0x80)?.value;
      if (!oid) return sw(0x6a80);
      this.paceRun = { oid: Uint8Array.from(oid) };
      return sw(0x9000);
    }
    if (c.ins === 0x86 && this.paceRun) return this.pace(c, this.paceRun);
    if (c.ins === 0xa4 && c.p1 === 0x04) {
      this.appSelected = constantTimeEqual(c.data, EMRTD_AID);
      return sw(this.appSelected ? 0x9000 : 0x6a82);
    }
    if (!this.appSelected) return sw(0x6d00);
    if (c.ins === 0x84 && c.le === 8) {
      this.rndIc = this.random(8);
      return concat(this.rndIc, sw(0x9000));
    }
    if (c.ins === 0x82) return this.externalAuthenticate(c);
    return sw(0x6982); // everything else needs access control
  }

  private externalAuthenticate(c: Command): Uint8Array {
    const rndIc = this.rndIc;
    this.rndIc = undefined;
    if (!rndIc || c.data.length !== 40) return sw(0x6985);
    const keys = bacKeys(this.options.mrz);
    const eIfd = c.data.subarray(0, 32);
    if (!constantTimeEqual(retailMac(keys.kMac, eIfd), c.data.subarray(32))) return sw(0x6300);
    const s = tdesDecrypt(keys.kEnc, eIfd);
    const rndIfd = s.subarray(0, 8);
    if (!constantTimeEqual(s.subarray(8, 16), rndIc)) return sw(0x6300);
    const kIc = this.random(16);
    const eIc = tdesEncrypt(keys.kEnc, concat(rndIc, rndIfd, kIc));
    const seed = s.subarray(16, 32).map((b, i) => b ^ kIc[i]);
    this.session = { cipher: tdesCipher(deriveKey(seed, ENC, '3DES'), deriveKey(seed, MAC, '3DES')), ssc: concat(rndIc.subarray(4), rndIfd.subarray(4)) };
    return concat(eIc, retailMac(keys.kMac, eIc), sw(0x9000));
  }

  /** PACE, generic mapping over ECDH on P-256, the chip's side of each GENERAL AUTHENTICATE step. */
  private pace(c: Command, run: PaceRun): Uint8Array {
    const outer = readTlvHeader(c.data);
    const inner = outer ? [...tlvChildren(c.data.subarray(outer.headerLength))] : [];
    const answer = (tag: number, value: Uint8Array) => concat(encodeTlv(0x7c, encodeTlv(tag, value)), sw(0x9000));
    const G = p256.ProjectivePoint.BASE;
    const key = () => (bytesToNumberBE(this.random(48)) % (p256.CURVE.n - 1n)) + 1n;
    if (inner.length === 0) {
      const nonce = this.random(16);
      run.nonce = bytesToNumberBE(nonce);
      return answer(0x80, aesCbcEncrypt(pacePasswordKey(this.options.mrz), new Uint8Array(16), nonce));
    }
    const [{ tag, value }] = inner;
    if (tag === 0x81 && run.nonce !== undefined) {
      const k = key();
      run.mapped = G.multiply(run.nonce).add(p256.ProjectivePoint.fromHex(value).multiply(k));
      return answer(0x82, G.multiply(k).toRawBytes(false));
    }
    if (tag === 0x83 && run.mapped) {
      const k = key();
      run.readerPoint = Uint8Array.from(value);
      run.chipPoint = run.mapped.multiply(k).toRawBytes(false);
      const shared = p256.ProjectivePoint.fromHex(value).multiply(k).toRawBytes(false).subarray(1, 33);
      run.ksEnc = deriveKey(shared, ENC, 'AES-128');
      run.ksMac = deriveKey(shared, MAC, 'AES-128');
      return answer(0x84, run.chipPoint);
    }
    if (tag === 0x85 && run.ksMac && run.ksEnc && run.chipPoint && run.readerPoint) {
      this.paceRun = undefined;
      // A wrong MRZ gives the reader another nonce, so another mapped generator and other keys: its token fails here.
      if (!constantTimeEqual(value, authenticationToken(run.ksMac, run.oid, run.chipPoint))) return sw(0x6300);
      const token = authenticationToken(run.ksMac, run.oid, run.readerPoint);
      this.session = { cipher: aesCipher(run.ksEnc, run.ksMac), ssc: new Uint8Array(16) };
      this.appSelected = false;
      return answer(0x86, token);
    }
    this.paceRun = undefined;
    return sw(0x6985);
  }

  private secure(c: Command): Uint8Array {
    const session = this.session;
    if (!session) return sw(0x6988);
    if (c.extended && this.options.extendedLength === false) {
      this.session = undefined;
      return sw(0x6700);
    }
    increment(session.ssc);
    let do87: Uint8Array = new Uint8Array(0);
    let do97: Uint8Array = new Uint8Array(0);
    let mac: Uint8Array | undefined;
    let data: Uint8Array = new Uint8Array(0);
    let le: number | undefined;
    for (const { tag, value } of tlvChildren(c.data)) {
      if (tag === 0x87) {
        do87 = encodeTlv(tag, value);
        data = unpad(session.cipher.decrypt(session.ssc, value.subarray(1)));
      } else if (tag === 0x97) {
        do97 = encodeTlv(tag, value);
        le = value.length === 1 ? value[0] || 256 : (value[0] << 8 | value[1]) || 65536;
      } else if (tag === 0x8e) mac = value;
    }
    const header = pad(Uint8Array.of(c.cla, c.ins, c.p1, c.p2), session.cipher.blockSize);
    if (!mac || !constantTimeEqual(session.cipher.mac(session.ssc, concat(header, do87, do97)), mac)) {
      this.session = undefined;
      return sw(0x6988);
    }
    const [body, status] = this.execute(c.ins, c.p1, c.p2, data, le);
    if (this.lost) throw new Error('Tag was lost.');
    const response = this.protect(session, body, status);
    // A short command's response must fit 256 bytes: the chip cannot send more.
    if (!c.extended && response.length > 256 + 2) return this.protect(session, new Uint8Array(0), 0x6700);
    return response;
  }

  private execute(ins: number, p1: number, p2: number, data: Uint8Array, le = 0): [Uint8Array, number] {
    if (ins === 0xa4 && p1 === 0x04) {
      this.appSelected = constantTimeEqual(data, EMRTD_AID);
      return [new Uint8Array(0), this.appSelected ? 0x9000 : 0x6a82];
    }
    if (!this.appSelected) return [new Uint8Array(0), 0x6982];
    if (ins === 0xa4 && p1 === 0x02) {
      const sfi = data.length === 2 && data[0] === 0x01 ? data[1] & 0x1f : -1;
      if (!this.options.files.has(sfi)) return [new Uint8Array(0), 0x6a82];
      this.selected = sfi;
      return [new Uint8Array(0), 0x9000];
    }
    if (ins !== 0xb0) return [new Uint8Array(0), 0x6d00];
    let offset: number;
    if (p1 & 0x80) {
      const sfi = p1 & 0x1f;
      if (!this.options.files.has(sfi)) return [new Uint8Array(0), 0x6a82];
      this.selected = sfi;
      offset = p2;
    } else offset = ((p1 & 0x7f) << 8) | p2;
    if (this.selected === undefined) return [new Uint8Array(0), 0x6986];
    const reads = (this.log.readsBySfi.get(this.selected) ?? 0) + 1;
    this.log.readsBySfi.set(this.selected, reads);
    const lose = this.options.loseTagAt;
    if (lose && lose.sfi === this.selected && lose.read === reads) this.lost = true;
    const file = this.options.files.get(this.selected)!;
    if (offset > file.length) return [new Uint8Array(0), 0x6b00];
    const out = file.subarray(offset, offset + le);
    return [out, out.length < le ? 0x6282 : 0x9000];
  }

  private protect(session: Session, body: Uint8Array, status: number): Uint8Array {
    increment(session.ssc);
    this.log.smResponses++;
    const do87 = body.length > 0 ? encodeTlv(0x87, concat(Uint8Array.of(1), session.cipher.encrypt(session.ssc, pad(body, session.cipher.blockSize)))) : new Uint8Array(0);
    const do99 = encodeTlv(0x99, sw(status));
    const mac = session.cipher.mac(session.ssc, concat(do87, do99));
    if (this.options.corruptMacOfResponse === this.log.smResponses) mac[mac.length - 1] ^= 0x01;
    return concat(do87, do99, encodeTlv(0x8e, mac), sw(status));
  }
}

/** An NFC link of `bitsPerSecond` with a fixed cost per exchange: the time a phone spends on each APDU. */
export function simulatedLink(chip: ChipTransport, link = { bitsPerSecond: 424_000, perExchangeMs: 5 }): ChipTransport & { elapsedMs(): number } {
  let modelled = 0;
  return {
    extendedLengthSupported: chip.extendedLengthSupported,
    elapsedMs: () => modelled,
    async transceive(apdu: Uint8Array): Promise<Uint8Array> {
      const response = await chip.transceive(apdu);
      const ms = link.perExchangeMs + ((apdu.length + response.length) * 8 * 1000) / link.bitsPerSecond;
      modelled += ms;
      await new Promise((resolve) => setTimeout(resolve, ms));
      return response;
    },
  };
}

export { decodeResponse };
