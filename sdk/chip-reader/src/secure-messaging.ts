import { aesBlock, aesCbcDecrypt, aesCbcEncrypt, aesCmac } from './aes';
import { CommandApdu, decodeResponse, encodeCommand, ResponseApdu } from './apdu';
import { concat, constantTimeEqual, pad, unpad } from './bytes';
import { retailMac, tdesDecrypt, tdesEncrypt } from './des';
import { smFailure } from './errors';
import { encodeTlv, tlvChildren } from './tlv';

/**
 * ICAO 9303-11 9.8 secure messaging: every command after access control is wrapped (DO87 encrypted
 * data, DO97 Le, DO8E MAC over SSC || header || DOs) and every response's MAC is checked before
 * anything in it is used. A response that fails, or lacks, its MAC is refused with
 * `secure_messaging`: nothing from it reaches the caller.
 */

/** What differs between 3DES (BAC) and AES (PACE) secure messaging. */
export type SmCipher = {
  readonly blockSize: 8 | 16;
  encrypt(ssc: Uint8Array, padded: Uint8Array): Uint8Array;
  decrypt(ssc: Uint8Array, encrypted: Uint8Array): Uint8Array;
  /** 8-byte MAC over SSC || message (the cipher pads as its algorithm requires). */
  mac(ssc: Uint8Array, message: Uint8Array): Uint8Array;
};

/** 3DES: IV zero, ISO 9797-1 MAC algorithm 3, 8-byte SSC. */
export function tdesCipher(ksEnc: Uint8Array, ksMac: Uint8Array): SmCipher {
  return {
    blockSize: 8,
    encrypt: (_ssc, padded) => tdesEncrypt(ksEnc, padded),
    decrypt: (_ssc, encrypted) => tdesDecrypt(ksEnc, encrypted),
    mac: (ssc, message) => retailMac(ksMac, concat(ssc, message)),
  };
}

/** AES: IV = E(KSenc, SSC), AES-CMAC truncated to 8 bytes over the padded input, 16-byte SSC. */
export function aesCipher(ksEnc: Uint8Array, ksMac: Uint8Array): SmCipher {
  return {
    blockSize: 16,
    encrypt: (ssc, padded) => aesCbcEncrypt(ksEnc, aesBlock(ksEnc, ssc), padded),
    decrypt: (ssc, encrypted) => aesCbcDecrypt(ksEnc, aesBlock(ksEnc, ssc), encrypted),
    mac: (ssc, message) => aesCmac(ksMac, pad(concat(ssc, message), 16)).subarray(0, 8),
  };
}

function increment(ssc: Uint8Array): void {
  for (let i = ssc.length - 1; i >= 0; i--) {
    ssc[i] = (ssc[i] + 1) & 0xff;
    if (ssc[i] !== 0) return;
  }
}

/** A response of the chip after unwrapping: `plain` when the chip answered an error without SM (it ends the session). */
export type SmResponse = ResponseApdu & { plain?: boolean };

export class SecureMessaging {
  private readonly ssc: Uint8Array;

  constructor(
    private readonly cipher: SmCipher,
    ssc: Uint8Array,
  ) {
    this.ssc = Uint8Array.from(ssc);
  }

  get blockSize(): number {
    return this.cipher.blockSize;
  }

  /** The protected command APDU for `command`; increments the SSC. */
  wrap(command: CommandApdu): Uint8Array {
    increment(this.ssc);
    const cla = command.cla | 0x0c;
    const header = pad(Uint8Array.from([cla, command.ins, command.p1, command.p2]), this.cipher.blockSize);
    const odd = (command.ins & 1) === 1;
    let do87: Uint8Array = new Uint8Array(0);
    if (command.data && command.data.length > 0) {
      const encrypted = this.cipher.encrypt(this.ssc, pad(command.data, this.cipher.blockSize));
      do87 = odd ? encodeTlv(0x85, encrypted) : encodeTlv(0x87, concat(Uint8Array.of(0x01), encrypted));
    }
    const extended = command.extended === true || (command.le ?? 0) > 256;
    let do97: Uint8Array = new Uint8Array(0);
    if (command.le !== undefined) {
      do97 = extended ? encodeTlv(0x97, Uint8Array.of((command.le >> 8) & 0xff, command.le & 0xff)) : encodeTlv(0x97, Uint8Array.of(command.le & 0xff));
    }
    const mac = this.cipher.mac(this.ssc, concat(header, do87, do97));
    const data = concat(do87, do97, encodeTlv(0x8e, mac));
    return encodeCommand({ cla, ins: command.ins, p1: command.p1, p2: command.p2, data, le: extended ? 65536 : 256, extended });
  }

  /** Checks the response's MAC and decrypts its data; increments the SSC. Throws `secure_messaging` on any doubt. */
  unwrap(bytes: Uint8Array): SmResponse {
    increment(this.ssc);
    const { data, sw } = decodeResponse(bytes);
    if (data.length === 0) {
      // A chip answers an SM error (or any error once it has dropped the session keys) in plain.
      if (sw === 0x9000) throw smFailure('response without MAC', sw);
      if (sw === 0x6987 || sw === 0x6988) throw smFailure('the chip refused the command MAC or data objects', sw);
      return { data, sw, plain: true };
    }
    let do87: Uint8Array | undefined;
    let encrypted: Uint8Array | undefined;
    let do99: Uint8Array | undefined;
    let statusWord: number | undefined;
    let mac: Uint8Array | undefined;
    try {
      for (const { tag, value } of tlvChildren(data)) {
        if (tag === 0x87 || tag === 0x85) {
          do87 = encodeTlv(tag, value);
          encrypted = tag === 0x87 ? value.subarray(1) : value;
          if (tag === 0x87 && value[0] !== 0x01) throw smFailure('DO87 without padding indicator 01');
        } else if (tag === 0x99) {
          do99 = encodeTlv(tag, value);
          if (value.length !== 2) throw smFailure('DO99 is not a status word');
          statusWord = (value[0] << 8) | value[1];
        } else if (tag === 0x8e) mac = value;
      }
    } catch (e) {
      if ((e as { code?: string }).code === 'secure_messaging') throw e;
      throw smFailure('response data objects do not parse', sw);
    }
    if (!mac) throw smFailure('response without DO8E', sw);
    if (!do99 || statusWord === undefined) throw smFailure('response without DO99', sw);
    const expected = this.cipher.mac(this.ssc, concat(do87 ?? new Uint8Array(0), do99));
    if (!constantTimeEqual(expected, mac)) throw smFailure('response MAC does not verify', sw);
    if (!encrypted) return { data: new Uint8Array(0), sw: statusWord };
    if (encrypted.length === 0 || encrypted.length % this.cipher.blockSize !== 0) throw smFailure('encrypted data is not whole blocks', sw);
    try {
      return { data: unpad(this.cipher.decrypt(this.ssc, encrypted)), sw: statusWord };
    } catch {
      throw smFailure('decrypted data has bad padding', sw);
    }
  }
}
