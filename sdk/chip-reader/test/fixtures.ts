import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import type { MrzKey } from '../src/mrz-key';
import { encodeTlv, readTlvHeader } from '../src/tlv';

/**
 * Test documents copied from the shared ICAO data into fixtures/ (provenance in fixtures/README.md):
 * - synthetic: the ICAO 9303-4 specimen DG1 (ERIKSSON, L898902C3), the BSI 2008 DG2, and the SOD
 *   signed over them by the synthetic P-256 document signer;
 * - bsi2008: the BSI/Bundesdruckerei test passport (MUSTERMANN), whose chip also holds DG3 and DG4.
 */
// Beside this file in the sources; from dist/ (the benchmark), back in the sources.
const FIXTURES = [path.join(__dirname, 'fixtures'), path.join(__dirname, '..', '..', '..', '..', 'sdk', 'chip-reader', 'test', 'fixtures')].find((d) => existsSync(d))!;
const at = (...parts: string[]) => new Uint8Array(readFileSync(path.join(FIXTURES, ...parts)));

/** EF.COM (LDS 1.7, Unicode 4.0.0) listing the given data group tags, as the chip personalised with them carries it. */
export function efCom(tags: number[]): Uint8Array {
  return encodeTlv(0x60, Uint8Array.from([0x5f, 0x01, 0x04, ...Buffer.from('0107'), 0x5f, 0x36, 0x06, ...Buffer.from('040000'), 0x5c, tags.length, ...tags]));
}

export const SYNTHETIC = {
  mrz: { documentNumber: 'L898902C3', dateOfBirth: '740812', dateOfExpiry: '120415' } satisfies MrzKey,
  com: efCom([0x61, 0x75]),
  sod: at('synthetic', 'EF_SOD.bin'),
  dg1: at('synthetic', 'EF_DG1.bin'),
  dg2: at('synthetic', 'EF_DG2.bin'),
};

export const BSI_2008 = {
  mrz: { documentNumber: 'C11T002JM', dateOfBirth: '960812', dateOfExpiry: '131031' } satisfies MrzKey,
  com: at('bsi2008', 'EF_COM.bin'),
  sod: at('bsi2008', 'EF_SOD.bin'),
  dg: Object.fromEntries([1, 2, 3, 4, 14, 15].map((n) => [n, at('bsi2008', `EF_DG${n}.bin`)])) as Record<number, Uint8Array>,
};

export const syntheticFiles = (dg2: Uint8Array = SYNTHETIC.dg2): Map<number, Uint8Array> =>
  new Map([
    [0x1e, SYNTHETIC.com],
    [0x1d, SYNTHETIC.sod],
    [0x01, SYNTHETIC.dg1],
    [0x02, dg2],
  ]);

export const bsiFiles = (): Map<number, Uint8Array> =>
  new Map([
    [0x1e, BSI_2008.com],
    [0x1d, BSI_2008.sod],
    ...[1, 2, 3, 4, 14, 15].map((n) => [n, BSI_2008.dg[n]] as [number, Uint8Array]),
  ]);

/**
 * A DG2 of `size` bytes (256 to 65,535) for the 20 KB goal: the synthetic DG2's template followed by
 * filler, under one outer 75 tag with its length rewritten. The reader needs only a well-formed outer
 * TLV; the SOD does not cover this file (reading is measured here, not Passive Authentication).
 */
export function dg2OfSize(size: number): Uint8Array {
  const inner = SYNTHETIC.dg2.subarray(readTlvHeader(SYNTHETIC.dg2)!.headerLength);
  const value = new Uint8Array(size - 4);
  value.set(inner.subarray(0, value.length));
  return encodeTlv(0x75, value);
}

/** EF.CardAccess offering one PACEInfo: id-PACE-ECDH-GM-AES-CBC-CMAC-128, version 2, parameter id (12 = NIST P-256). */
export function cardAccess(parameterId = 12): Uint8Array {
  const oid = encodeTlv(0x06, Uint8Array.of(0x04, 0x00, 0x7f, 0x00, 0x07, 0x02, 0x02, 0x04, 0x02, 0x02));
  return encodeTlv(0x31, encodeTlv(0x30, Uint8Array.from([...oid, 0x02, 0x01, 0x02, 0x02, 0x01, parameterId])));
}
