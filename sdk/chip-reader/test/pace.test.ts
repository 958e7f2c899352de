import { ChipReaderError, readPassport } from '../src';
import { paceInfos, supportedPace } from '../src/pace';
import { BSI_2008, bsiFiles, cardAccess, SYNTHETIC, syntheticFiles } from './fixtures';
import { SimulatedChip, simulatedLink } from './simulated-chip';

/** PACE (ECDH generic mapping, P-256, AES-128 SM) against the simulated chip, which plays the chip's side of every step. */

const withCardAccess = (files: Map<number, Uint8Array>, parameterId = 12) => new Map([...files, [0x1c, cardAccess(parameterId)]]);

it('parses EF.CardAccess and picks the P-256 AES-128 generic mapping', () => {
  expect(supportedPace(paceInfos(cardAccess(12)))).toMatchObject({ version: 2, parameterId: 12 });
  expect(supportedPace(paceInfos(cardAccess(13)))).toBeUndefined(); // brainpoolP256r1: not run, BAC instead
});

it('reads the synthetic passport with PACE and AES secure messaging, the same files as with BAC, within the goals', async () => {
  const chip = new SimulatedChip({ files: withCardAccess(syntheticFiles()), mrz: SYNTHETIC.mrz });
  const link = simulatedLink(chip);
  const read = await readPassport(link, { mrz: SYNTHETIC.mrz });
  expect(read.accessControl).toBe('PACE');
  expect(read.sod).toEqual(SYNTHETIC.sod);
  expect(read.dataGroups.get(1)).toEqual(SYNTHETIC.dg1);
  expect(read.dataGroups.get(2)).toEqual(SYNTHETIC.dg2);
  expect(['EF.SOD', 'DG1', 'DG2'].reduce((n, f) => n + (read.stats.apdusForFiles[f as 'DG1'] ?? 0), 0)).toBeLessThanOrEqual(12);
  expect(link.elapsedMs()).toBeLessThan(2000);
});

it('PACE with short reads after the chip refuses extended length: a second PACE run, the same files', async () => {
  const chip = new SimulatedChip({ files: withCardAccess(bsiFiles()), mrz: BSI_2008.mrz, extendedLength: false });
  const read = await readPassport(chip, { mrz: BSI_2008.mrz });
  expect(read.accessControl).toBe('PACE');
  expect(read.dataGroups.get(2)).toEqual(BSI_2008.dg[2]);
  expect(read.dataGroups.get(14)).toEqual(BSI_2008.dg[14]);
  expect(chip.log.readsBySfi.get(3) ?? 0).toBe(0);
  expect(chip.log.readsBySfi.get(4) ?? 0).toBe(0);
});

it('a wrong MRZ under PACE: the chip refuses the token with 6300, wrong_mrz_key', async () => {
  const chip = new SimulatedChip({ files: withCardAccess(syntheticFiles()), mrz: SYNTHETIC.mrz });
  const error = await readPassport(chip, { mrz: { ...SYNTHETIC.mrz, documentNumber: 'L898902C4' } }).catch((e) => e);
  expect(error).toBeInstanceOf(ChipReaderError);
  expect(error).toMatchObject({ code: 'wrong_mrz_key', details: { statusWord: 0x6300 } });
  expect(chip.log.readsBySfi.size).toBe(0);
});

it('a bad MAC on any AES secure-messaging response is refused (0 accepted)', async () => {
  const clean = new SimulatedChip({ files: withCardAccess(syntheticFiles()), mrz: SYNTHETIC.mrz });
  await readPassport(clean, { mrz: SYNTHETIC.mrz });
  let accepted = 0;
  for (let n = 1; n <= clean.log.smResponses; n++) {
    const chip = new SimulatedChip({ files: withCardAccess(syntheticFiles()), mrz: SYNTHETIC.mrz, corruptMacOfResponse: n });
    const code = await readPassport(chip, { mrz: SYNTHETIC.mrz }).then(() => 'read', (e: ChipReaderError) => e.code);
    if (code !== 'secure_messaging') accepted++;
  }
  expect(accepted).toBe(0);
});

it('a chip offering only a PACE suite this reader does not run (brainpool) is read with BAC', async () => {
  const read = await readPassport(new SimulatedChip({ files: withCardAccess(syntheticFiles(), 13), mrz: SYNTHETIC.mrz }), { mrz: SYNTHETIC.mrz });
  expect(read.accessControl).toBe('BAC');
  expect(read.dataGroups.get(2)).toEqual(SYNTHETIC.dg2);
});
