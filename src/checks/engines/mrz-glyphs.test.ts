import { seededRandom } from '../../../bench/checks/mrz-lines';
import { lineOfGlyphs, lineTextOfGlyphs, type Glyph } from './mrz-glyphs';

/** Glyphs of `text` printed at a fixed pitch from x = 40, each centre moved by up to `jitter` of the pitch. */
function printed(text: string, pitch: number, jitter: number, rand: () => number): Glyph[] {
  return [...text].map((c, i) => {
    const centre = 40 + i * pitch + (rand() * 2 - 1) * jitter * pitch;
    return { text: c, x0: centre - pitch * 0.35, x1: centre + pitch * 0.35 };
  });
}
/** The glyph at `index` read as two glyphs, `a` a little left of its centre and `b` a little right. */
function split(glyphs: Glyph[], index: number, a: string, b: string, offset: number): Glyph[] {
  const g = glyphs[index];
  const w = g.x1 - g.x0;
  return [...glyphs.slice(0, index), { text: a, x0: g.x0 - offset, x1: g.x1 - offset - w / 3 }, { text: b, x0: g.x0 + w / 3 + offset, x1: g.x1 + offset }, ...glyphs.slice(index + 1)];
}

const LINE = 'P<SWENOWAK<<YUKI<<<<<<<<<<<<<<<<<<<<<<<<<<<<';

describe('lineTextOfGlyphs (fixed-pitch MRZ print)', () => {
  it('keeps every line read one glyph per position as read, at any pitch and with jitter of a tenth of the pitch', () => {
    const rand = seededRandom(3);
    for (const pitch of [24, 30, 37.5, 43]) expect(lineTextOfGlyphs(printed(LINE, pitch, 0.1, rand))).toBe(LINE);
  });

  it('writes one unknown position for a character read as two glyphs, keeping the line length and the other characters', () => {
    const rand = seededRandom(4);
    for (let trial = 0; trial < 50; trial++) {
      const index = 2 + Math.floor(rand() * 40);
      const text = lineTextOfGlyphs(split(printed(LINE, 37.5, 0.05, rand), index, 'E', 'C', rand() * 4));
      expect(text).toBe(LINE.slice(0, index) + '?' + LINE.slice(index + 1));
    }
  });

  it('writes two unknown positions for two neighbouring characters read as four glyphs (NOWAK read as NV0OWAK)', () => {
    const glyphs = printed(LINE, 37.5, 0, seededRandom(5));
    const n = LINE.indexOf('NOWAK');
    const read = split(split(glyphs, n + 1, '0', 'O', 0), n, 'N', 'V', 0);
    expect(read.map((g) => g.text).join('')).toContain('NV0OWAK');
    expect(lineTextOfGlyphs(read)).toBe(LINE.slice(0, n) + '??' + LINE.slice(n + 2));
  });

  it('writes an unknown position for a character the OCR did not see at all (a thin I), so the rest of the line does not shift', () => {
    const line = 'LUKASZEWICZ<WOJCIK<<ELODIE<<<<';
    const glyphs = printed(line, 37.5, 0.05, seededRandom(7));
    const i = line.indexOf('ICZ');
    const read = lineOfGlyphs([...glyphs.slice(0, i), ...glyphs.slice(i + 1)]);
    expect(read.text).toBe(line.slice(0, i) + '?' + line.slice(i + 1));
    expect(read.confidences[i]).toBe(0);
    // Two characters missed side by side are two unknown positions.
    expect(lineTextOfGlyphs([...glyphs.slice(0, i), ...glyphs.slice(i + 2)])).toBe(line.slice(0, i) + '??' + line.slice(i + 2));
  });

  it('leaves short readings (under five glyphs), where no pitch can be measured, as read', () => {
    expect(lineTextOfGlyphs(split(printed('ABC', 30, 0, seededRandom(6)), 1, 'B', 'B', 0))).toBe('ABBC');
  });
});

describe('lineOfGlyphs carries the OCR\'s other choices position by position', () => {
  it('keeps each glyph\'s alternatives at its position, and none at an unknown one', () => {
    const rand = seededRandom(5);
    const glyphs = printed(LINE, 30, 0.05, rand).map((g, i) => (i === 20 ? { ...g, alternatives: [{ char: 'G', confidence: 0.4 }] } : { ...g, alternatives: [] }));
    const read = lineOfGlyphs(split(glyphs, 5, 'E', 'C', 1));
    expect(read.text[5]).toBe('?');
    expect(read.alternatives?.[5]).toEqual([]);
    expect(read.alternatives?.[20]).toEqual([{ char: 'G', confidence: 0.4 }]);
    expect(read.alternatives).toHaveLength(LINE.length);
  });

  it('gives no alternatives when the OCR gave none', () => {
    expect(lineOfGlyphs(printed(LINE, 30, 0, seededRandom(6))).alternatives).toBeUndefined();
  });
});
