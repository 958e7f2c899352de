import { createHash } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import { FsBlobStore } from './fs-blob-store';

const text = async (r: Readable | null) => {
  const chunks: Buffer[] = [];
  for await (const c of r!) chunks.push(c as Buffer);
  return Buffer.concat(chunks);
};

describe('FsBlobStore', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ivs-fsblob-'));
  const store = new FsBlobStore(dir);

  it('names a blob by the SHA-256 of its bytes, in two levels of fan-out, and reads it back', async () => {
    const bytes = Buffer.alloc(1024 * 1024 + 3, 0x5a);
    const key = createHash('sha256').update(bytes).digest('hex');
    expect(await store.put('art_x', Readable.from([bytes.subarray(0, 1000), bytes.subarray(1000)]))).toEqual({ key, sizeBytes: bytes.length });
    expect(fs.existsSync(path.join(dir, 'blobs', key.slice(0, 2), key.slice(2, 4), key))).toBe(true);
    expect((await text(await store.get(key))).equals(bytes)).toBe(true);
    expect(fs.readdirSync(path.join(dir, 'tmp'))).toEqual([]);
  });

  it('answers null for a blob that is not there or a key that is not one, and deleting twice is fine', async () => {
    const { key } = await store.put('art_y', Readable.from([Buffer.from('gone soon')]));
    await store.delete(key);
    await store.delete(key);
    expect(await store.get(key)).toBeNull();
    expect(await store.get('../../etc/passwd')).toBeNull();
  });

  it('leaves no file behind when the body fails midway', async () => {
    async function* failing() {
      yield Buffer.alloc(70_000, 1);
      throw new Error('the client went away');
    }
    await expect(store.put('art_z', Readable.from(failing()))).rejects.toThrow('the client went away');
    expect(fs.readdirSync(path.join(dir, 'tmp'))).toEqual([]);
  });
});
