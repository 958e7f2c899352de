/** Content types the upload API accepts, each recognised by its leading bytes (the declared type must agree). */
const SIGNATURES: { type: string; kind: 'image' | 'video'; matches: (b: Buffer) => boolean }[] = [
  { type: 'image/jpeg', kind: 'image', matches: (b) => b.length >= 3 && b[0] === 0xff && b[1] === 0xd8 && b[2] === 0xff },
  { type: 'image/png', kind: 'image', matches: (b) => b.subarray(0, 8).equals(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])) },
  { type: 'image/webp', kind: 'image', matches: (b) => b.subarray(0, 4).toString('latin1') === 'RIFF' && b.subarray(8, 12).toString('latin1') === 'WEBP' },
  { type: 'video/webm', kind: 'video', matches: (b) => b.subarray(0, 4).equals(Buffer.from([0x1a, 0x45, 0xdf, 0xa3])) },
  { type: 'video/mp4', kind: 'video', matches: (b) => b.subarray(4, 8).toString('latin1') === 'ftyp' },
];

/** Bytes needed before a signature can be told. */
export const SNIFF_BYTES = 12;

export const ACCEPTED_CONTENT_TYPES = SIGNATURES.map((s) => s.type);

export type MediaKind = 'image' | 'video';

/** The kind of an accepted declared type (parameters such as `; charset` ignored), or null when not accepted. */
export function kindOfDeclared(declared: string | undefined): MediaKind | null {
  const type = normalize(declared);
  return SIGNATURES.find((s) => s.type === type)?.kind ?? null;
}

export function normalize(declared: string | undefined): string {
  return (declared ?? '').split(';')[0].trim().toLowerCase();
}

/** The accepted type the bytes really are, or null. */
export function sniff(head: Buffer): string | null {
  return SIGNATURES.find((s) => s.matches(head))?.type ?? null;
}
