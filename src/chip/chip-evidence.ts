import { CHIP_SOURCE, isFromChip, type ArtifactRecord } from '../vault/artifact-store';
import type { EvidenceVault } from '../vault/evidence-vault';
import { portraitFromDg2 } from './dg2-portrait';
import { jpeg2000ToPng } from './jpeg2000.decoder';
import { mrzText } from './mrz.parser';
import type { PassiveAuthenticationResult } from './passive-authentication.types';

/** While a session waits for its captures or its chip, the chip's evidence may be stored. */
const OPEN: readonly string[] = ['created', 'in_progress'];

type SessionRef = { id: string; tenantId: string; livemode: boolean };

/** What the T5 cross-checks read from the chip: only data groups whose hash EF.SOD signs. */
export type ChipEvidence = { mrzText: string | null; portrait: { bytes: Buffer; contentType: string } | null };

/**
 * Keeps what the T5 decision compares, encrypted in the vault like every capture (personal data):
 * DG1's MRZ text as an `mrz_text` artifact and DG2's portrait, converted to PNG, as an
 * `id_document_image` with side `chip_portrait`. A data group whose hash did not match is not kept
 * (its content is not the issuer's). Returns why the portrait is missing, for the check's reason.
 */
export async function storeChipEvidence(
  vault: EvidenceVault,
  session: SessionRef,
  dataGroups: Map<number, Buffer>,
  pa: PassiveAuthenticationResult,
  submittedAt: Date,
): Promise<{ portrait: 'stored' | 'not_submitted' | 'not_authentic' | 'unreadable' }> {
  const matched = (n: number) => pa.data_groups.some((g) => g.number === n && g.status === 'match');
  const details = { source: CHIP_SOURCE, submitted_at: submittedAt.toISOString() };
  const dg1 = dataGroups.get(1);
  const text = dg1 && matched(1) ? mrzText(dg1) : null;
  if (text) await vault.putDerived({ session, class: 'mrz_text', bytes: Buffer.from(text, 'latin1'), contentType: 'text/plain', details, openStatuses: OPEN });
  const dg2 = dataGroups.get(2);
  if (!dg2) return { portrait: 'not_submitted' };
  if (!matched(2)) return { portrait: 'not_authentic' };
  const image = await portraitImage(dg2);
  if (!image) return { portrait: 'unreadable' };
  await vault.putDerived({ session, class: 'id_document_image', ...image, details: { ...details, side: 'chip_portrait' }, openStatuses: OPEN });
  return { portrait: 'stored' };
}

/** JPEG as stored; JPEG 2000 (every ICAO sample) decoded to PNG, since the face engines read JPEG and PNG only. */
async function portraitImage(dg2: Buffer): Promise<{ bytes: Buffer; contentType: string } | null> {
  const portrait = portraitFromDg2(dg2);
  if (!portrait) return null;
  if (portrait.format === 'jpeg') return { bytes: portrait.bytes, contentType: 'image/jpeg' };
  const png = await jpeg2000ToPng(portrait.bytes).catch(() => null);
  return png && { bytes: png, contentType: 'image/png' };
}

/** The chip evidence of the submission recorded in the chip block (an earlier refused attempt's rows are ignored). */
export async function openChipEvidence(vault: EvidenceVault, artifacts: ArtifactRecord[], submittedAt: unknown): Promise<ChipEvidence> {
  const mine = artifacts.filter((a) => isFromChip(a) && a.details.submitted_at === submittedAt);
  const open = async (a: ArtifactRecord | undefined) => (a ? (await vault.open(a)).bytes : null);
  const mrz = await open(mine.find((a) => a.class === 'mrz_text'));
  const portraitRow = mine.find((a) => a.class === 'id_document_image');
  const portrait = await open(portraitRow);
  return { mrzText: mrz ? mrz.toString('latin1') : null, portrait: portrait && portraitRow ? { bytes: portrait, contentType: portraitRow.contentType } : null };
}
