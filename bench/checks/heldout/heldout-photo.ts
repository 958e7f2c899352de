/** HELD-OUT EVALUATION ONLY (never used to tune the reader; see heldout-set.ts): one document's photo. */
import { photograph } from './camera';
import { renderHeldoutPage } from './heldout-page';
import type { HeldoutDocument } from './heldout-set';

export async function heldoutPhoto(doc: HeldoutDocument): Promise<{ bytes: Buffer; contentType: string }> {
  const { page, zone } = await renderHeldoutPage(doc);
  return photograph(doc, page, zone);
}
