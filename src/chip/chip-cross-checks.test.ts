import { parse } from 'mrz';
import type { MrzFields } from '../checks/check-providers';
import { mrzFields } from '../checks/engines/mrz-text';
import { chipCheckWithCrossChecks, compareChipMrz, CrossCheck } from './chip-cross-checks';

// The ICAO 9303 specimen (the synthetic DG1): ERIKSSON, ANNA MARIA, UTO, L898902C3, born 1974-08-12, expiry 2012-04-15.
const DG1_MRZ = 'P<UTOERIKSSON<<ANNA<MARIA<<<<<<<<<<<<<<<<<<<' + 'L898902C36UTO7408122F1204159ZE184226B<<<<<10';
const NOW = new Date('2026-11-26T00:00:00Z');
// What the document reader gives for the same zone: the same `mrz` parser (it leaves the unknown state code UTO empty).
const fromImage: MrzFields = mrzFields(parse([DG1_MRZ.slice(0, 44), DG1_MRZ.slice(44)]), 'TD3', NOW);
const PA_PASS = { name: 'chip_passive_authentication', status: 'pass' as const, score: 1, reason: 'Document is genuine and unmodified per ICAO 9303 Passive Authentication.' };
const match: CrossCheck = { status: 'match', reason: 'ok' };

describe('chip cross-checks', () => {
  it("matches DG1 with the same MRZ read from the image, and names each differing field (never its value)", () => {
    expect(compareChipMrz(DG1_MRZ, fromImage, NOW).status).toBe('match');
    const other = compareChipMrz(DG1_MRZ, { ...fromImage, documentNumber: 'X12345678', dateOfBirth: '1980-01-01' }, NOW);
    expect(other).toEqual({ status: 'mismatch', reason: "The chip's DG1 differs from the document image's MRZ (document number, date of birth)" });
    expect(other.reason).not.toMatch(/X123|1980/);
    expect(compareChipMrz(DG1_MRZ, undefined, NOW).status).toBe('not_checked');
    expect(compareChipMrz(null, fromImage, NOW).status).toBe('not_checked');
  });

  it('keeps the exact Passive Authentication reason on a pass; a difference fails; a comparison not made goes to a person', () => {
    expect(chipCheckWithCrossChecks(PA_PASS, match, match)).toEqual({ name: PA_PASS.name, verdict: 'pass', score: 1, reason: PA_PASS.reason });
    expect(chipCheckWithCrossChecks(PA_PASS, { status: 'not_checked', reason: 'no MRZ' }, match).verdict).toBe('pass');
    const differs = chipCheckWithCrossChecks(PA_PASS, { status: 'mismatch', reason: "The chip's DG1 differs" }, match);
    expect(differs).toMatchObject({ verdict: 'fail', score: 0, reason: "The chip's DG1 differs" });
    const noPortrait = chipCheckWithCrossChecks(PA_PASS, match, { status: 'error', reason: 'No portrait could be read' });
    expect(noPortrait.verdict).toBe('error');
    expect(noPortrait.reason).toContain('No portrait could be read');
    const borderline = chipCheckWithCrossChecks(PA_PASS, match, { status: 'error', reason: 'may not match', verdict: 'review' });
    expect(borderline.verdict).toBe('review');
    const paFailed = chipCheckWithCrossChecks({ ...PA_PASS, status: 'fail', score: 0, reason: 'data group hashes failed' }, match, match);
    expect(paFailed).toMatchObject({ verdict: 'fail', reason: 'data group hashes failed' });
  });
});
