import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { Readable } from 'node:stream';
import { throughStep } from './chunk-step';

describe('throughStep (a store that cannot hand its read buffer over: S3, bytes kept in the database)', () => {
  const key = randomBytes(32);
  const iv = randomBytes(12);
  const clear = randomBytes(300_000);
  const cipher = createCipheriv('aes-256-gcm', key, iv);
  const ciphertext = Buffer.concat([cipher.update(clear), cipher.final()]);
  const tag = cipher.getAuthTag();
  const pieces = (b: Buffer) => Readable.from([b.subarray(0, 100_000), b.subarray(100_000, 200_000), b.subarray(200_000)]);
  const read = async (r: Readable) => {
    const got: Buffer[] = [];
    try {
      for await (const c of r) got.push(c as Buffer);
      return { bytes: Buffer.concat(got), error: null };
    } catch (err) {
      return { bytes: Buffer.concat(got), error: err as Error };
    }
  };

  it('gives the clear bytes whole', async () => {
    const { bytes, error } = await read(throughStep(pieces(ciphertext), createDecipheriv('aes-256-gcm', key, iv).setAuthTag(tag)));
    expect(error).toBeNull();
    expect(bytes.equals(clear)).toBe(true);
  });

  it('fails without giving the last piece when the bytes were altered: a forged blob never comes out whole', async () => {
    const altered = Buffer.from(ciphertext);
    altered[10] ^= 1;
    const { bytes, error } = await read(throughStep(pieces(altered), createDecipheriv('aes-256-gcm', key, iv).setAuthTag(tag)));
    expect(error?.message).toMatch(/authenticate/);
    expect(bytes.length).toBe(200_000);
  });

  it('passes the source error on', async () => {
    async function* broken() {
      yield ciphertext.subarray(0, 1000);
      throw new Error('the bucket went away');
    }
    const { error } = await read(throughStep(Readable.from(broken()), createDecipheriv('aes-256-gcm', key, iv).setAuthTag(tag)));
    expect(error?.message).toBe('the bucket went away');
  });
});
