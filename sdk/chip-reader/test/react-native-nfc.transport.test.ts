import { openIsoDep, readPassport } from '../src';
import { BSI_2008, bsiFiles } from './fixtures';
import { SimulatedChip } from './simulated-chip';

/**
 * The react-native-nfc-manager transport with the library's API played by the simulated chip (the
 * library itself needs a phone): the bytes go through `isoDepHandler.transceive` as number arrays, and
 * a library error in the middle of a read is the reader's `tag_lost`.
 */
function nfcManager(chip: SimulatedChip, failAfter = Infinity) {
  const calls: string[] = [];
  let exchanges = 0;
  return {
    calls,
    start: async () => void calls.push('start'),
    requestTechnology: async (tech: string | string[]) => void calls.push(`request ${tech}`),
    cancelTechnologyRequest: async () => void calls.push('cancel'),
    isoDepHandler: {
      transceive: async (bytes: number[]) => {
        if (++exchanges > failAfter) throw new Error('Tag connection lost');
        return Array.from(await chip.transceive(Uint8Array.from(bytes)));
      },
    },
  };
}

it('reads the BSI test passport through the IsoDep handler, then releases the tag', async () => {
  const nfc = nfcManager(new SimulatedChip({ files: bsiFiles(), mrz: BSI_2008.mrz }));
  const transport = await openIsoDep(nfc, 'IsoDep');
  const read = await readPassport(transport, { mrz: BSI_2008.mrz });
  await transport.close();
  expect(read.dataGroups.get(1)).toEqual(BSI_2008.dg[1]);
  expect(nfc.calls).toEqual(['start', 'request IsoDep', 'cancel']);
});

it('a library error mid-read is tag_lost', async () => {
  const transport = await openIsoDep(nfcManager(new SimulatedChip({ files: bsiFiles(), mrz: BSI_2008.mrz }), 12), 'IsoDep');
  await expect(readPassport(transport, { mrz: BSI_2008.mrz })).rejects.toMatchObject({ code: 'tag_lost' });
});
