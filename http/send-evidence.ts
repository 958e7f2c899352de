import type { Response } from 'express';
import type { OpenedEvidence } from '../src/vault/evidence-access.service';
import { pumpReleasing } from '../src/vault/buffer-release';

/**
 * Streams opened evidence to the client as it is read and decrypted, never whole in memory. The
 * length is known from the row (AES-GCM keeps it); a stream that fails midway (a blob altered at
 * rest fails its tag at the end) aborts the response, so the client sees a truncated transfer, not
 * a complete one. Each chunk is the decipher's own output and is freed once the socket has taken it
 * (docs/benchmarks.md, "Buffers freed as they are sent").
 */
export async function sendEvidence(res: Response, opened: OpenedEvidence): Promise<void> {
  res.setHeader('x-content-type-options', 'nosniff');
  res.setHeader('content-length', String(opened.sizeBytes));
  res.type(opened.contentType);
  await pumpReleasing(opened.body as AsyncIterable<Buffer>, res).catch(() => {
    // Headers are out; all that is left is to cut the connection (already destroyed).
    res.destroy();
  });
}
