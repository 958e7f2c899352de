import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { Transform } from 'node:stream';

/**
 * A document in the export bundle is `iv (12 bytes) || AES-256-GCM ciphertext || tag (16 bytes)`
 * under the export's own 32-byte key, with no associated data, so standard tools can open it
 * (docs/data-rights.md, "Opening a document"). The key travels only with the job, never in the link.
 */
export const IV_BYTES = 12;
export const TAG_BYTES = 16;
export const DOCUMENT_KEY_BYTES = 32;

export const newDocumentKey = (): Buffer => randomBytes(DOCUMENT_KEY_BYTES);

/** A stream that encrypts what passes through it into the envelope above. */
export function sealingStream(key: Buffer): Transform {
  const iv = randomBytes(IV_BYTES);
  const cipher = createCipheriv('aes-256-gcm', key, iv);
  let started = false;
  return new Transform({
    transform(chunk: Buffer, _enc, done) {
      if (!started) {
        started = true;
        this.push(iv);
      }
      done(null, cipher.update(chunk));
    },
    flush(done) {
      if (!started) this.push(iv);
      this.push(cipher.final());
      done(null, cipher.getAuthTag());
    },
  });
}

/** Opens an envelope; throws when the key is wrong or a byte was changed. */
export function openEnvelope(key: Buffer, envelope: Buffer): Buffer {
  if (envelope.length < IV_BYTES + TAG_BYTES) throw new Error('envelope too short');
  const decipher = createDecipheriv('aes-256-gcm', key, envelope.subarray(0, IV_BYTES));
  decipher.setAuthTag(envelope.subarray(envelope.length - TAG_BYTES));
  return Buffer.concat([decipher.update(envelope.subarray(IV_BYTES, envelope.length - TAG_BYTES)), decipher.final()]);
}
