import { createCipheriv, createDecipheriv, createHash, randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import { throughStep } from './chunk-step';
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

  describe('a blob read through its decipher (throughStep over get)', () => {
    const key32 = randomBytes(32);
    const iv = randomBytes(12);
    // Three reads of 512 KiB and a short fourth.
    const clear = randomBytes(3 * 512 * 1024 + 12_345);
    const cipher = createCipheriv('aes-256-gcm', key32, iv);
    const ciphertext = Buffer.concat([cipher.update(clear), cipher.final()]);
    const tag = cipher.getAuthTag();
    const decipher = () => createDecipheriv('aes-256-gcm', key32, iv).setAuthTag(tag);
    /** Descriptors of this process open on the blob's file: by path, since other tests of the same worker open and close their own meanwhile. */
    const openOn = (key: string) => {
      const file = store.pathOf(key);
      return fs.readdirSync('/proc/self/fd').filter((fd) => {
        try {
          return fs.readlinkSync(`/proc/self/fd/${fd}`) === file;
        } catch {
          return false; // closed meanwhile
        }
      }).length;
    };

    /** fs.close runs on the thread pool: the descriptor is gone once the file's stream says `close`, which may come after the body's end on a loaded machine. */
    const closed = async (file: Readable) => {
      if (!file.closed) await new Promise((done) => file.once('close', done));
    };

    it('gives the clear bytes whole and closes the file', async () => {
      const { key } = await store.put('art_clear', Readable.from([ciphertext]));
      const file = (await store.get(key))!;
      const chunks: Buffer[] = [];
      for await (const c of throughStep(file, decipher())) chunks.push(c as Buffer);
      expect(chunks.length).toBeGreaterThanOrEqual(4);
      expect(Buffer.concat(chunks).equals(clear)).toBe(true);
      await closed(file);
      expect(openOn(key)).toBe(0);
    });

    it('fails before its last chunk, not quietly, when the blob was altered at rest, and closes the file', async () => {
      const altered = Buffer.from(ciphertext);
      altered[altered.length - 100] ^= 1;
      const { key } = await store.put('art_altered', Readable.from([altered]));
      const file = (await store.get(key))!;
      const body = throughStep(file, decipher());
      let delivered = 0;
      await expect(
        (async () => {
          for await (const c of body) delivered += (c as Buffer).length;
        })(),
      ).rejects.toThrow(/authenticate/);
      // The last chunk is held back until the tag has passed: a forged blob never comes out at its full length.
      expect(delivered).toBe(3 * 512 * 1024);
      await closed(file);
      expect(openOn(key)).toBe(0);
    });

    it("hands over every chunk it reads: each is the whole of its own buffer, which the decipher's reader may free", async () => {
      const { key } = await store.put('art_owned', Readable.from([ciphertext]));
      expect(store.readChunksAreOwned).toBe(true);
      const file = (await store.get(key))!;
      const sizes: number[] = [];
      const chunks: Buffer[] = [];
      for await (const c of file as AsyncIterable<Buffer>) {
        expect(c.byteOffset).toBe(0);
        expect(c.byteLength).toBe(c.buffer.byteLength);
        sizes.push(c.length);
        chunks.push(c);
      }
      expect(sizes).toEqual([512 * 1024, 512 * 1024, 512 * 1024, ciphertext.length - 3 * 512 * 1024]);
      // Freed as they are deciphered, the chunks still give the clear bytes whole.
      const out: Buffer[] = [];
      for await (const c of throughStep((await store.get(key))!, decipher(), { releaseSourceChunks: true })) out.push(c as Buffer);
      expect(Buffer.concat(out).equals(clear)).toBe(true);
      expect(Buffer.concat(chunks).equals(ciphertext)).toBe(true);
    });

    it('closes the file when the reader is destroyed midway (a client gone)', async () => {
      const { key } = await store.put('art_cut', Readable.from([ciphertext]));
      const file = (await store.get(key))!;
      const body = throughStep(file, decipher());
      for await (const _chunk of body) break; // leaving the loop destroys the stream, and the file's stream with it
      await closed(file);
      expect(openOn(key)).toBe(0);
    });
  });
});
