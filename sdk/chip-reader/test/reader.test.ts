import { ChipReaderError, readPassport, ReadProgress } from '../src';
import { BSI_2008, bsiFiles, dg2OfSize, SYNTHETIC, syntheticFiles } from './fixtures';
import { SimulatedChip, simulatedLink } from './simulated-chip';

/** The reader against the simulated chip: what it reads, in how many APDUs, and how it fails. */

const random = (n: number) => Uint8Array.from({ length: n }, (_, i) => (i * 37 + 11) & 0xff);
/** APDUs the goal counts: everything sent to read EF.SOD, DG1 and DG2 after access control. */
const goalApdus = (stats: { apdusForFiles: Record<string, number | undefined> }) => ['EF.SOD', 'DG1', 'DG2'].reduce((n, f) => n + (stats.apdusForFiles[f] ?? 0), 0);

describe('reading the synthetic passport (ICAO specimen DG1, BSI DG2, P-256 SOD)', () => {
  it('with extended length: every file byte for byte, SOD + DG1 + DG2 in <= 12 APDUs, under 2 s on a 424 kbit/s + 5 ms link', async () => {
    const chip = new SimulatedChip({ files: syntheticFiles(), mrz: SYNTHETIC.mrz });
    const link = simulatedLink(chip);
    const progress: ReadProgress[] = [];
    // The link's time is modelled (simulatedLink); the reader's own is its CPU, which a loaded machine does not stretch
    // the way it does the wall clock (issue 47).
    const cpu = process.cpuUsage();
    const read = await readPassport(link, { mrz: SYNTHETIC.mrz, random, onProgress: (p) => progress.push(p) });
    const { user, system } = process.cpuUsage(cpu);
    const cpuMs = (user + system) / 1000;
    expect(read.sod).toEqual(SYNTHETIC.sod);
    expect(read.dataGroups.get(1)).toEqual(SYNTHETIC.dg1);
    expect(read.dataGroups.get(2)).toEqual(SYNTHETIC.dg2);
    expect([...read.dataGroups.keys()]).toEqual([1, 2]);
    expect(read.stats.extendedLength).toBe(true);
    expect(goalApdus(read.stats)).toBeLessThanOrEqual(12);
    expect(cpuMs + link.elapsedMs()).toBeLessThan(2000);
    // Progress per file, with bytes, ending at each file's size.
    const last = (file: string) => progress.filter((p) => p.file === file).at(-1);
    expect(last('DG2')).toEqual({ file: 'DG2', bytesRead: SYNTHETIC.dg2.length, totalBytes: SYNTHETIC.dg2.length });
    expect(last('EF.SOD')).toEqual({ file: 'EF.SOD', bytesRead: SYNTHETIC.sod.length, totalBytes: SYNTHETIC.sod.length });
    expect(progress.filter((p) => p.file === 'DG2').length).toBeGreaterThan(1);
  });

  it('falls back to short reads when the chip refuses extended length (and ends SM): same files, SOD + DG1 + DG2 in <= 90 APDUs', async () => {
    const chip = new SimulatedChip({ files: syntheticFiles(), mrz: SYNTHETIC.mrz, extendedLength: false });
    const read = await readPassport(chip, { mrz: SYNTHETIC.mrz, random });
    expect(read.dataGroups.get(2)).toEqual(SYNTHETIC.dg2);
    expect(read.sod).toEqual(SYNTHETIC.sod);
    expect(read.stats.extendedLength).toBe(false);
    expect(goalApdus(read.stats)).toBeLessThanOrEqual(90);
  });

  it('sends no extended APDU at all when the transport says the phone cannot', async () => {
    const chip = new SimulatedChip({ files: syntheticFiles(), mrz: SYNTHETIC.mrz });
    const read = await readPassport({ transceive: (a) => chip.transceive(a), extendedLengthSupported: false }, { mrz: SYNTHETIC.mrz, random });
    expect(read.dataGroups.get(2)).toEqual(SYNTHETIC.dg2);
    expect(chip.log.extendedCommands).toBe(0);
  });

  it('a 20 KB DG2: <= 12 APDUs extended; short reads need the floor that 231-byte 3DES SM responses allow', async () => {
    const dg2 = dg2OfSize(20 * 1024);
    const extended = await readPassport(new SimulatedChip({ files: syntheticFiles(dg2), mrz: SYNTHETIC.mrz }), { mrz: SYNTHETIC.mrz, random });
    expect(extended.dataGroups.get(2)).toEqual(dg2);
    expect(goalApdus(extended.stats)).toBeLessThanOrEqual(12);
    const link = simulatedLink(new SimulatedChip({ files: syntheticFiles(dg2), mrz: SYNTHETIC.mrz, extendedLength: false }));
    const short = await readPassport({ transceive: (a) => link.transceive(a), extendedLengthSupported: false }, { mrz: SYNTHETIC.mrz, random });
    expect(short.dataGroups.get(2)).toEqual(dg2);
    // One 8-byte header read per file, then 231-byte reads: no short-read reader can do with fewer than ceil(bytes / 231) reads.
    const floor = [SYNTHETIC.sod.length, SYNTHETIC.dg1.length, dg2.length].reduce((n, size) => n + 1 + Math.ceil((size - 8) / 231), 0);
    expect(goalApdus(short.stats)).toBe(floor);
    expect(link.elapsedMs()).toBeLessThan(2000);
  });
});

describe('what the reader refuses', () => {
  it('a wrong MRZ key: wrong_mrz_key with the chip status 6300, nothing read', async () => {
    const chip = new SimulatedChip({ files: syntheticFiles(), mrz: SYNTHETIC.mrz });
    const error = await readPassport(chip, { mrz: { ...SYNTHETIC.mrz, dateOfBirth: '740813' }, random }).catch((e) => e);
    expect(error).toBeInstanceOf(ChipReaderError);
    expect(error).toMatchObject({ code: 'wrong_mrz_key', details: { statusWord: 0x6300 } });
    expect(chip.log.readsBySfi.size).toBe(0);
  });

  it('a bad MAC on any secure-messaging response: secure_messaging, for every response of a whole read (0 accepted)', async () => {
    const clean = new SimulatedChip({ files: syntheticFiles(), mrz: SYNTHETIC.mrz });
    await readPassport(clean, { mrz: SYNTHETIC.mrz, random });
    const responses = clean.log.smResponses;
    expect(responses).toBeGreaterThan(5);
    let accepted = 0;
    for (let n = 1; n <= responses; n++) {
      const chip = new SimulatedChip({ files: syntheticFiles(), mrz: SYNTHETIC.mrz, corruptMacOfResponse: n });
      const outcome = await readPassport(chip, { mrz: SYNTHETIC.mrz, random }).then(
        () => 'read',
        (e: ChipReaderError) => e.code,
      );
      if (outcome !== 'secure_messaging') accepted++;
      // The reader stops at the bad response: nothing after it was asked for.
      expect(chip.log.smResponses).toBe(n);
    }
    expect(accepted).toBe(0);
  });

  it('the tag lost in the middle of DG2: tag_lost', async () => {
    const chip = new SimulatedChip({ files: syntheticFiles(), mrz: SYNTHETIC.mrz, extendedLength: false, loseTagAt: { sfi: 2, read: 20 } });
    await expect(readPassport(chip, { mrz: SYNTHETIC.mrz, random })).rejects.toMatchObject({ code: 'tag_lost' });
    expect(chip.log.readsBySfi.get(2)).toBe(20);
  });

  it('a card without the eMRTD application: unsupported_chip', async () => {
    const notAPassport = { transceive: async () => Uint8Array.of(0x6a, 0x82) };
    await expect(readPassport(notAPassport, { mrz: SYNTHETIC.mrz, random })).rejects.toMatchObject({ code: 'unsupported_chip' });
  });
});

describe('the BSI 2008 test passport, whose chip holds DG3 and DG4', () => {
  it('reads EF.COM, EF.SOD and the data groups EF.COM lists but DG3/DG4; the chip sees 0 reads of DG3 or DG4', async () => {
    const chip = new SimulatedChip({ files: bsiFiles(), mrz: BSI_2008.mrz });
    const read = await readPassport(chip, { mrz: BSI_2008.mrz, random });
    expect(read.com).toEqual(BSI_2008.com);
    expect(read.sod).toEqual(BSI_2008.sod);
    // EF.COM lists DG1, DG2, DG3 and DG14 (not DG15): DG14 is read, DG3 never.
    expect([...read.dataGroups.keys()]).toEqual([1, 2, 14]);
    for (const n of [1, 2, 14]) expect(read.dataGroups.get(n)).toEqual(BSI_2008.dg[n]);
    expect(chip.log.readsBySfi.get(3) ?? 0).toBe(0);
    expect(chip.log.readsBySfi.get(4) ?? 0).toBe(0);
    expect([...chip.log.readsBySfi.keys()].sort((a, b) => a - b)).toEqual([0x01, 0x02, 0x0e, 0x1d, 0x1e]);
  });
});
