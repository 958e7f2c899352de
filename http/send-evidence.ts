import type { Response } from 'express';
import { pipeline } from 'node:stream/promises';
import type { OpenedEvidence } from '../src/vault/evidence-access.service';

/**
 * Streams opened evidence to the client as it is read and decrypted, never whole in memory. The
 * length is known from the row (AES-GCM keeps it); a stream that fails midway (a blob altered at
 * rest fails its tag at the end) aborts the response, so the client sees a truncated transfer, not
 * a complete one.
 */
export async function sendEvidence(res: Response, opened: OpenedEvidence): Promise<void> {
  res.setHeader('x-content-type-options', 'nosniff');
  res.setHeader('content-length', String(opened.sizeBytes));
  res.type(opened.contentType);
  await pipeline(opened.body, res).catch(() => {
    // Headers are out; all that is left is to cut the connection (pipeline already destroyed both ends).
    res.destroy();
  });
}
