import { PassThrough, Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { ZipFile } from 'yazl';
import { measuring } from '../../net/measuring-stream';
import { sealingStream } from './document-envelope';
import type { ExportSigningKey } from './export-signing-key';

export type ManifestEntry = { name: string; size: number; sha256: string };
export type ManifestDocument = { name: string; content_type: string; plaintext_sha256: string; plaintext_size: number };

export type Manifest = {
  format: 'data-export';
  version: 1;
  job_id: string;
  created_at: string;
  /** The `kid` of the key in /v1/.well-known/export-keys that signed manifest.sig. */
  key_id: string;
  entries: ManifestEntry[];
  documents: { encryption: 'AES-256-GCM'; layout: 'iv(12) || ciphertext || tag(16)'; items: ManifestDocument[] };
};

/**
 * Writes the export bundle as a zip stream, one entry after another, so nothing but the entry in
 * flight (a chunk at a time) is held in memory (docs/data-rights.md, "The export bundle"). Each
 * entry is hashed as it passes; `finish` adds `manifest.json` (size and sha256 of every entry)
 * and `manifest.sig` (a compact Ed25519 JWS over the manifest). Read `output` while adding.
 */
export class ExportBundleWriter {
  private readonly zip = new ZipFile();
  private readonly entries: ManifestEntry[] = [];
  private readonly documents: ManifestDocument[] = [];
  private failure: Error | null = null;

  constructor(
    private readonly opts: { jobId: string; createdAt: Date; signingKey: ExportSigningKey; documentKey: Buffer },
  ) {
    this.zip.on('error', (err: Error) => {
      this.failure = err;
    });
  }

  /** The zip bytes; pipe it somewhere before the first `add`, or the writer waits for a reader forever. */
  get output(): Readable {
    return this.zip.outputStream as Readable;
  }

  async addJson(name: string, value: unknown): Promise<void> {
    await this.addEntry(name, Readable.from([Buffer.from(`${JSON.stringify(value, null, 2)}\n`, 'utf8')]), true);
  }

  /** One JSON document per line, read from `rows` only as fast as the zip is written. */
  async addNdjson(name: string, rows: AsyncIterable<unknown>): Promise<void> {
    async function* lines() {
      for await (const row of rows) yield Buffer.from(`${JSON.stringify(row)}\n`, 'utf8');
    }
    await this.addEntry(name, Readable.from(lines()), true);
  }

  /** `documents/<id>.<ext>`: the bytes sealed under the export's document key; the manifest also records the plaintext's sha256. */
  async addDocument(id: string, ext: string, contentType: string, bytes: AsyncIterable<Buffer> | Buffer): Promise<void> {
    const name = `documents/${id}.${ext}`;
    const plain = measuring();
    const source = Buffer.isBuffer(bytes) ? Readable.from([bytes]) : Readable.from(bytes);
    const sealed = new PassThrough();
    const sealing = pipeline(source, plain.stream, sealingStream(this.opts.documentKey), sealed);
    // Encrypted bytes do not compress: stored as they are.
    await Promise.all([sealing, this.addEntry(name, sealed, false)]);
    this.documents.push({ name, content_type: contentType, plaintext_sha256: plain.sha256(), plaintext_size: plain.size() });
  }

  /** Adds the manifest and its signature and ends the zip; resolves when the last byte is handed to `output`. */
  async finish(): Promise<Manifest> {
    const manifest: Manifest = {
      format: 'data-export',
      version: 1,
      job_id: this.opts.jobId,
      created_at: this.opts.createdAt.toISOString(),
      key_id: this.opts.signingKey.kid,
      entries: [...this.entries],
      documents: { encryption: 'AES-256-GCM', layout: 'iv(12) || ciphertext || tag(16)', items: [...this.documents] },
    };
    const bytes = Buffer.from(`${JSON.stringify(manifest, null, 2)}\n`, 'utf8');
    const options = { mtime: this.opts.createdAt };
    this.zip.addBuffer(bytes, 'manifest.json', options);
    this.zip.addBuffer(Buffer.from(`${this.opts.signingKey.signJws(bytes)}\n`, 'ascii'), 'manifest.sig', options);
    const ended = new Promise<void>((resolve, reject) => {
      this.output.once('end', resolve);
      this.output.once('error', reject);
      this.zip.once('error', reject);
    });
    this.zip.end();
    await ended;
    if (this.failure) throw this.failure;
    return manifest;
  }

  private async addEntry(name: string, source: Readable, compress: boolean): Promise<void> {
    if (this.failure) throw this.failure;
    const measured = measuring();
    const hashing = measured.stream;
    this.zip.addReadStream(hashing, name, { mtime: this.opts.createdAt, compress });
    // Resolves once the zip has read the last byte (it reads entries in order, at the output's pace).
    const consumed = new Promise<void>((resolve, reject) => {
      hashing.once('end', resolve);
      hashing.once('error', reject);
    });
    await Promise.all([pipeline(source, hashing, { end: true }).catch((err: Error) => {
      this.failure = err;
      hashing.destroy(err);
      throw err;
    }), consumed]);
    this.entries.push({ name, size: measured.size(), sha256: measured.sha256() });
  }
}
