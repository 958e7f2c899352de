/** The LDS files this reader reads (ICAO 9303-10), by short file identifier and EF.COM tag. */

export type LdsFileName = 'EF.COM' | 'EF.SOD' | 'DG1' | 'DG2' | 'DG14' | 'DG15';

export const EMRTD_AID = Uint8Array.of(0xa0, 0x00, 0x00, 0x02, 0x47, 0x10, 0x01);
export const SFI = { 'EF.COM': 0x1e, 'EF.SOD': 0x1d, DG1: 0x01, DG2: 0x02, DG14: 0x0e, DG15: 0x0f } as const;

/**
 * The data groups read, in order, when EF.COM lists them. DG3 (fingerprints) and DG4 (iris) are
 * never read, even where access would allow it: the service never collects them (spec, "Data never
 * collected"); `assertAllowed` guards every READ BINARY.
 */
export const DATA_GROUPS_READ = [1, 2, 14, 15] as const;
export const NEVER_READ = new Set([3, 4]);

/** EF.COM's tag list (5C) names data groups by their file tag. */
export const DG_TAG: Record<number, number> = { 0x61: 1, 0x75: 2, 0x63: 3, 0x76: 4, 0x65: 5, 0x66: 6, 0x67: 7, 0x68: 8, 0x69: 9, 0x6a: 10, 0x6b: 11, 0x6c: 12, 0x6d: 13, 0x6e: 14, 0x6f: 15, 0x70: 16 };

export function assertAllowed(sfi: number): void {
  if (NEVER_READ.has(sfi)) throw new Error(`DG${sfi} is never read`);
}
