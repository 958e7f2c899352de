import { loadImage } from '@napi-rs/canvas';
import { fixture } from '../../test/fixtures/icao/icao.fixtures';
import { portraitFromDg2 } from './dg2-portrait';
import { jpeg2000ToPng } from './jpeg2000.decoder';

describe('the DG2 portrait', () => {
  it.each([
    ['synthetic', 413, 531],
    ['bsi_2008_test_passport_mustermann', 413, 531],
    ['nl_sdu_test_passport_2006', 449, 598],
  ])('is read from %s as JPEG 2000 and decoded to a PNG the face engines can open', async (folder, width, height) => {
    const portrait = portraitFromDg2(fixture(folder, 'EF_DG2.bin'));
    expect(portrait?.format).toBe('jpeg2000');
    const png = await jpeg2000ToPng(portrait!.bytes);
    expect(png.subarray(1, 4).toString('latin1')).toBe('PNG');
    const image = await loadImage(png);
    expect([image.width, image.height]).toEqual([width, height]);
  });

  it('is null for a data group that is not DG2, and decoding refuses bytes with no codestream', async () => {
    expect(portraitFromDg2(fixture('synthetic', 'EF_DG1.bin'))).toBeNull();
    expect(portraitFromDg2(Buffer.from([0x75, 0x03, 0x01, 0x02, 0x03]))).toBeNull();
    const dg2 = fixture('synthetic', 'EF_DG2.bin');
    expect(portraitFromDg2(dg2.subarray(0, 60))).toBeNull(); // truncated
    await expect(jpeg2000ToPng(Buffer.from('not an image'))).rejects.toThrow(/codestream/);
  });
});
