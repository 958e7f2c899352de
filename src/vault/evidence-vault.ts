import { Cipher, createCipheriv, createDecipheriv, createHash, Hash, randomBytes } from 'node:crypto';
import { Readable } from 'node:stream';
import { normalize, sniff, SNIFF_BYTES } from './content-type';
import { DomainError } from '../errors';
import { randomBase62 } from '../ids';
import type { ArtifactClass } from './artifact-classes';
import { retentionRuleFor } from './artifact-retention';
import type { ArtifactRecord, ArtifactStore, Inserted, InsertGuard, InsertRefusal, NewArtifact } from './artifact-store';
import type { BlobLocation, BlobStore } from './blob-store';
import { throughStep } from './chunk-step';
import { UploadGate } from './upload-gate';
import type { VaultKeys } from './vault-keys';
import { systemClock, type Clock } from '../clock';

/**
 * Upload bodies read at once, and the share of them one tenant and one session may hold
 * (src/vault/upload-gate.ts). Streamed to a blob store, a body in flight costs a few socket and file
 * buffers, so many may run; held whole for VAULT_STORE=postgres (up to 25 MiB each), 16. One tenant reads 16 at
 * once, not 64: with 200 uploads of one tenant arriving together the server's RSS grew +30 MiB, not +70, at no
 * loss of throughput (bench:hosted, 2026-11-30): the waiting bodies stay in the kernel's socket buffers.
 */
const STREAMED_UPLOAD_LIMITS = { slots: 256, perTenant: 16, perSession: 2 };
const BUFFERED_UPLOAD_LIMITS = { slots: 16, perTenant: 8, perSession: 2 };


export type StoreArtifactInput = {
  session: { id: string; tenantId: string; livemode: boolean };
  class: ArtifactClass;
  /** The Content-Type the client declared; the bytes must be that type. */
  declaredType: string;
  body: AsyncIterable<Buffer | string>;
  maxBytes: number;
  /** The size the client announced (Content-Length), when it did: the ciphertext then goes straight into one buffer of that size. */
  expectedBytes?: number;
  details?: Record<string, unknown>;
  /**
   * More details, made once the whole body has arrived (a liveness frame's time is when the server had its
   * bytes, not when its request began: a body streamed slowly could be made after its headers were sent).
   */
  detailsWhenRead?: () => Record<string, unknown>;
  /** Passed to the store's guard: statuses in which the session still takes captures, and the class limit (an upload is refused once the page's captures were submitted, too). */
  openStatuses: readonly string[];
  maxPerClass: number;
};

export type OpenedArtifact = { record: ArtifactRecord; bytes: Buffer | null };
/** An artifact's clear bytes as a stream; `body` is null once purged. */
export type StreamedArtifact = { record: ArtifactRecord; body: Readable | null };

export const newArtifactId = (): string => `art_${randomBase62(24)}`;

/**
 * Encrypts artifacts on their way in (AES-256-GCM under the tenant's data key, the artifact id as
 * associated data so ciphertext cannot be moved to another row) and decrypts them on the way out.
 * A body is read once as it arrives: checked, hashed and encrypted chunk by chunk and streamed to
 * the blob store with back-pressure (a slow disk slows the socket, nothing piles up); the row goes
 * in after the blob is durable, and a refused row deletes its blob. Without a blob store
 * (VAULT_STORE=postgres) the ciphertext is held until the one transaction that stores row and bytes.
 */
export class EvidenceVault {
  private readonly now: Clock;
  private readonly blobs: BlobStore | null;
  private readonly gate: UploadGate;

  constructor(
    private readonly store: ArtifactStore,
    private readonly keys: VaultKeys,
    opts: {
      now?: Clock;
      /** Where ciphertext lives; null or left out keeps it in artifact_blobs (VAULT_STORE=postgres). */
      blobs?: BlobStore | null;
    } = {},
  ) {
    this.now = opts.now ?? systemClock;
    this.blobs = opts.blobs ?? null;
    this.gate = new UploadGate(this.blobs ? STREAMED_UPLOAD_LIMITS : BUFFERED_UPLOAD_LIMITS);
  }

  put(input: StoreArtifactInput): Promise<ArtifactRecord> {
    return this.gate.run({ tenantId: input.session.tenantId, sessionId: input.session.id }, () => this.read(input));
  }

  private async read(input: StoreArtifactInput): Promise<ArtifactRecord> {
    const id = newArtifactId();
    const declared = normalize(input.declaredType);
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', await this.keys.dataKey(input.session.tenantId), iv);
    cipher.setAAD(Buffer.from(id, 'utf8'));
    const hash = createHash('sha256');
    const seen = { size: 0 };
    const ciphertext = Readable.from(encrypting(input, declared, cipher, hash, seen), { objectMode: false });
    const stored = await this.keep(id, ciphertext, input.expectedBytes !== undefined && input.expectedBytes <= input.maxBytes ? input.expectedBytes : undefined);
    const row = this.newRow(id, input.session, input.class, {
      contentType: declared,
      sizeBytes: seen.size,
      sha256: hash.digest('hex'),
      details: { ...input.details, ...input.detailsWhenRead?.() },
      iv,
      authTag: cipher.getAuthTag(),
      blobKey: stored.blob?.key ?? null,
    });
    // An upload body is the page's: refused once the page's captures were submitted.
    const inserted = await this.insert(row, stored, { openStatuses: input.openStatuses, maxPerClass: input.maxPerClass, refuseSubmitted: true, retention: retentionRuleFor(input.class) });
    if ('refused' in inserted) {
      if (inserted.refused === 'no_session') throw new DomainError('not_found', 'Session not found');
      if (inserted.refused === 'session_state') throw new DomainError('invalid_state', `This session no longer takes captures (it is ${inserted.status})`);
      if (inserted.refused === 'submitted') throw new DomainError('invalid_state', 'The captures were already submitted');
      throw new DomainError('invalid_request', `A session holds at most ${inserted.max} ${input.class} artifacts`);
    }
    return { ...row, ...inserted };
  }

  /** The ciphertext made durable in the blob store, or (without one) gathered for the row's transaction. */
  private async keep(id: string, ciphertext: Readable, expectedBytes?: number): Promise<{ blob: BlobLocation | null; bytes: Buffer | null }> {
    if (this.blobs) return { blob: await this.blobs.put(id, ciphertext, expectedBytes), bytes: null };
    const gathered = new CiphertextBuffer(expectedBytes);
    for await (const chunk of ciphertext) gathered.push(chunk as Buffer);
    return { blob: null, bytes: gathered.bytes() };
  }

  /** Inserts the row after its blob is durable; a blob whose row is refused (or fails) is deleted again. */
  private async insert(row: NewArtifact, stored: { blob: BlobLocation | null; bytes: Buffer | null }, guard: InsertGuard): Promise<InsertRefusal | Inserted> {
    let result: InsertRefusal | Inserted;
    try {
      result = await this.store.insert(row, stored.bytes, guard);
    } catch (err) {
      // If the row did commit after all (an error on the way back), the blob is gone and reads answer 410; the orphan sweep would have kept it otherwise.
      if (stored.blob) await this.blobs!.delete(stored.blob.key).catch(() => undefined);
      throw err;
    }
    if ('refused' in result && stored.blob) await this.blobs!.delete(stored.blob.key);
    return result;
  }

  /**
   * Bytes the service itself derived, not uploaded: by the checks (templates, MRZ text, the decision) while the
   * session is processing, or from a T5 chip (its MRZ and portrait, `details.source: 'chip'`) while it is open.
   */
  async putDerived(input: {
    session: StoreArtifactInput['session'];
    class: ArtifactClass;
    bytes: Buffer;
    contentType: string;
    details?: Record<string, unknown>;
    openStatuses?: readonly string[];
  }): Promise<void> {
    const id = newArtifactId();
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', await this.keys.dataKey(input.session.tenantId), iv);
    cipher.setAAD(Buffer.from(id, 'utf8'));
    const ciphertext = Buffer.concat([cipher.update(input.bytes), cipher.final()]);
    const sha256 = createHash('sha256').update(input.bytes).digest('hex');
    const stored = await this.keep(id, Readable.from([ciphertext]));
    const row = this.newRow(id, input.session, input.class, {
      contentType: input.contentType,
      sizeBytes: input.bytes.length,
      sha256,
      details: input.details ?? {},
      iv,
      authTag: cipher.getAuthTag(),
      blobKey: stored.blob?.key ?? null,
    });
    // A retried job stores again; the bound keeps retries from piling up.
    const result = await this.insert(row, stored, { openStatuses: input.openStatuses ?? ['processing'], maxPerClass: 8, refuseSubmitted: false, retention: retentionRuleFor(input.class) });
    // The checks' writes stay best effort as before; chip evidence must be there before the chip counts.
    if (input.openStatuses && 'refused' in result && result.refused === 'session_state') throw new DomainError('invalid_state', `This session no longer takes chip data (it is ${result.status})`);
  }

  /** Small personal data kept outside the artifact table (a confirmed name), sealed under the tenant's data key: base64 of iv, tag, ciphertext. */
  async seal(tenantId: string, context: string, value: unknown): Promise<string> {
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', await this.keys.dataKey(tenantId), iv);
    cipher.setAAD(Buffer.from(context, 'utf8'));
    const ct = Buffer.concat([cipher.update(JSON.stringify(value), 'utf8'), cipher.final()]);
    return Buffer.concat([iv, cipher.getAuthTag(), ct]).toString('base64');
  }

  async unseal<T>(tenantId: string, context: string, sealed: string): Promise<T> {
    const raw = Buffer.from(sealed, 'base64');
    const decipher = createDecipheriv('aes-256-gcm', await this.keys.dataKey(tenantId), raw.subarray(0, 12));
    decipher.setAAD(Buffer.from(context, 'utf8'));
    decipher.setAuthTag(raw.subarray(12, 28));
    return JSON.parse(Buffer.concat([decipher.update(raw.subarray(28)), decipher.final()]).toString('utf8')) as T;
  }

  /** The row before its insert; `retain_until` comes from the tenant's policy the insert reads, per class (docs/retention-and-audit.md). */
  private newRow(
    id: string,
    session: StoreArtifactInput['session'],
    cls: ArtifactClass,
    bytes: Pick<ArtifactRecord, 'contentType' | 'sizeBytes' | 'sha256' | 'details' | 'iv' | 'authTag' | 'blobKey'>,
  ): NewArtifact {
    return { id, sessionId: session.id, tenantId: session.tenantId, livemode: session.livemode, userId: null, class: cls, ...bytes, storedAt: this.now(), purgedAt: null };
  }

  find(id: string): Promise<ArtifactRecord | null> {
    return this.store.find(id);
  }

  /** The row and the user its session is bound to now, in one round trip (an evidence link's open). */
  findWithSessionUser(id: string): Promise<{ record: ArtifactRecord; sessionUserId: string | null } | null> {
    return this.store.findWithSessionUser(id);
  }

  list(sessionId: string): Promise<ArtifactRecord[]> {
    return this.store.listBySession(sessionId);
  }

  /** The artifact with its clear bytes, whole (the checks need whole images); `bytes` is null once purged. */
  async open(record: ArtifactRecord): Promise<OpenedArtifact> {
    const { body } = await this.stream(record);
    if (!body) return { record, bytes: null };
    const chunks: Buffer[] = [];
    for await (const chunk of body) chunks.push(chunk as Buffer);
    return { record, bytes: Buffer.concat(chunks) };
  }

  /**
   * The artifact's clear bytes as they are read from the store, decrypted on the way. AES-GCM checks
   * its tag only at the end: a blob altered at rest makes the stream fail there (the reader sees an
   * error, not a clean end, and never the last chunk: `throughStep` holds it back until the tag has passed), so a
   * consumer must treat only a stream that ended cleanly as the artifact.
   */
  async stream(record: ArtifactRecord): Promise<StreamedArtifact> {
    if (record.purgedAt) return { record, body: null };
    const decipher = createDecipheriv('aes-256-gcm', await this.keys.dataKey(record.tenantId), record.iv);
    decipher.setAAD(Buffer.from(record.id, 'utf8'));
    decipher.setAuthTag(record.authTag);
    if (record.blobKey && this.blobs) {
      const file = await this.blobs.get(record.blobKey);
      // A store whose read buffers are its own has each freed as soon as it is deciphered (src/vault/buffer-release.ts).
      return { record, body: file ? throughStep(file, decipher, { releaseSourceChunks: this.blobs.readChunksAreOwned }) : null };
    }
    const bytes = record.blobKey ? null : await this.store.ciphertext(record.id);
    return { record, body: bytes ? throughStep(Readable.from([bytes]), decipher) : null };
  }
}

/**
 * Reads an upload body once: counts it against `maxBytes`, checks its first bytes are the declared
 * type, hashes the clear bytes and yields their ciphertext as it goes. The reader pulls, so nothing
 * is read from the socket faster than the store writes.
 */
async function* encrypting(input: StoreArtifactInput, declared: string, cipher: Cipher, hash: Hash, seen: { size: number }): AsyncGenerator<Buffer> {
  let head = Buffer.alloc(0);
  let sniffed = false;
  const checkType = () => {
    sniffed = true;
    const actual = sniff(head);
    if (actual !== declared) throw new DomainError('unsupported_media_type', `The bytes are ${actual ?? 'not an accepted type'}, not ${declared}`);
  };
  for await (const raw of input.body) {
    const chunk = typeof raw === 'string' ? Buffer.from(raw) : raw;
    seen.size += chunk.length;
    if (seen.size > input.maxBytes) throw new DomainError('payload_too_large', `A ${input.class} is at most ${input.maxBytes} bytes`);
    if (!sniffed) {
      head = Buffer.concat([head, chunk]);
      if (head.length >= SNIFF_BYTES) checkType();
    }
    hash.update(chunk);
    yield cipher.update(chunk);
  }
  if (seen.size === 0) throw new DomainError('invalid_request', 'The upload is empty');
  if (!sniffed) checkType();
  yield cipher.final();
}

/**
 * The ciphertext of one upload, held once: written into a single buffer of the announced size
 * (AES-GCM's ciphertext is exactly as long as the plaintext), so no second copy is made to join
 * chunks. Without an announced size, chunks are joined at the end.
 */
class CiphertextBuffer {
  private readonly whole: Buffer | null;
  private readonly parts: Buffer[] = [];
  private length = 0;

  constructor(expected: number | undefined) {
    this.whole = expected !== undefined ? Buffer.allocUnsafe(expected) : null;
  }

  push(chunk: Buffer): void {
    if (chunk.length === 0) return;
    // Once a chunk overflows the announced size, the rest stays in order after it.
    if (this.whole && this.parts.length === 0 && this.length + chunk.length <= this.whole.length) chunk.copy(this.whole, this.length);
    else this.parts.push(chunk);
    this.length += chunk.length;
  }

  bytes(): Buffer {
    if (this.whole && this.parts.length === 0) return this.whole.subarray(0, this.length);
    return Buffer.concat([...(this.whole ? [this.whole.subarray(0, Math.min(this.length, this.whole.length))] : []), ...this.parts]);
  }
}
