import { kindOfDeclared, sniff } from './content-type';

describe('content types', () => {
  it('recognises accepted types by their bytes, not by what is declared', () => {
    expect(sniff(Buffer.from([0xff, 0xd8, 0xff, 0xe0, 0, 0, 0, 0, 0, 0, 0, 0]))).toBe('image/jpeg');
    expect(sniff(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 0]))).toBe('image/png');
    expect(sniff(Buffer.from('RIFF\0\0\0\0WEBPVP8 ', 'latin1'))).toBe('image/webp');
    expect(sniff(Buffer.from('GIF89a......', 'latin1'))).toBeNull();
    expect(sniff(Buffer.from('<svg xmlns=', 'latin1'))).toBeNull();
  });

  it('maps declared types to kinds, ignoring parameters', () => {
    expect(kindOfDeclared('image/JPEG; q=1')).toBe('image');
    expect(kindOfDeclared('video/webm')).toBe('video');
    expect(kindOfDeclared('image/svg+xml')).toBeNull();
    expect(kindOfDeclared(undefined)).toBeNull();
  });
});
