import { flattened } from './image-tools';
import { skewCandidates, type TextLine } from './mrz-locator';
import { lineGroups, linePitch, zoneMeasure } from './mrz-zone-candidates';

const W = 1000;

/** A mask with one text line per entry: glyphs `glyph` px wide every `pitch` px (monospaced), or at irregular places. */
function maskOf(lines: { top: number; height: number; left: number; count: number; pitch: number; irregular?: boolean }[]): Uint8Array {
  const mask = new Uint8Array(W * 700);
  let seed = 7;
  const rand = () => ((seed = (seed * 16807) % 2147483647) / 2147483647);
  for (const l of lines) {
    let x = l.left;
    for (let c = 0; c < l.count; c++) {
      const glyph = Math.round(l.pitch * 0.6);
      for (let y = l.top; y < l.top + l.height; y++) for (let dx = 0; dx < glyph; dx++) if ((dx + y) % 3 !== 0) mask[y * W + x + dx] = 1;
      x += l.irregular ? Math.round(l.pitch * (0.5 + rand() * 1.2)) : l.pitch;
    }
  }
  return mask;
}

const line = (top: number, height: number, left: number, right: number): TextLine => ({ top, bottom: top + height - 1, left, right });

describe('linePitch and zoneMeasure', () => {
  it('find the pitch of a monospaced line, and a TD1 in three lines of 30 characters', () => {
    const lines = [0, 1, 2].map((i) => ({ top: 400 + i * 40, height: 24, left: 100, count: 30, pitch: 24 }));
    const mask = maskOf(lines);
    const group = lines.map((l) => line(l.top, l.height, l.left, l.left + 29 * 24 + 14)).reverse();
    const p = linePitch(mask, W, group[0]);
    expect(p.pitch).toBeGreaterThan(23);
    expect(p.pitch).toBeLessThan(25);
    const m = zoneMeasure(mask, W, group);
    expect(m.chars).toBe(30);
    expect(m.score).toBeGreaterThan(0);
  });

  it('score proportional text lower than a monospaced zone', () => {
    const irregular = [0, 1].map((i) => ({ top: 100 + i * 40, height: 24, left: 100, count: 36, pitch: 22, irregular: true }));
    const regular = [0, 1].map((i) => ({ top: 400 + i * 40, height: 24, left: 100, count: 36, pitch: 22 }));
    const mask = maskOf([...irregular, ...regular]);
    const right = (l: { left: number; count: number; pitch: number }) => l.left + (l.count - 1) * l.pitch + 13;
    const prose = zoneMeasure(mask, W, irregular.map((l) => line(l.top, l.height, l.left, right(l))).reverse());
    const zone = zoneMeasure(mask, W, regular.map((l) => line(l.top, l.height, l.left, right(l))).reverse());
    expect(zone.score).toBeGreaterThan(prose.score);
    expect(zone.chars).toBe(36);
  });
});

describe('lineGroups', () => {
  it('lists every run of 2 or 3 neighbouring lines of similar height, bottom line first', () => {
    const lines = [line(100, 20, 100, 800), line(140, 20, 100, 800), line(180, 20, 100, 800), line(400, 10, 100, 300)];
    const groups = lineGroups(lines).map((g) => g.map((l) => l.top));
    expect(groups).toEqual([[140, 100], [180, 140, 100], [180, 140]]);
  });
});

describe('skewCandidates', () => {
  it('gives the sharpest angle first and other peaks at least 2 degrees away', () => {
    const mask = maskOf([0, 1, 2, 3, 4].map((i) => ({ top: 100 + i * 60, height: 20, left: 100, count: 30, pitch: 24 })));
    const angles = skewCandidates(mask, W, 700, 3);
    expect(angles[0]).toBe(0);
    for (const a of angles.slice(1)) expect(Math.abs(a)).toBeGreaterThanOrEqual(2);
  });
});

describe('flattened', () => {
  it('evens out a shadow: the paper is white on both sides of its edge, the ink stays dark', () => {
    const width = 60;
    const data = new Uint8Array(width * 20);
    for (let y = 0; y < 20; y++)
      for (let x = 0; x < width; x++) {
        const paper = x < 30 ? 230 : 120;
        data[y * width + x] = x % 10 === 5 ? paper * 0.3 : paper;
      }
    const out = flattened({ width, height: 20, data }, 4);
    expect(out.data[10 * width + 12]).toBeGreaterThan(240);
    expect(out.data[10 * width + 42]).toBeGreaterThan(240);
    expect(out.data[10 * width + 45]).toBeLessThan(100);
  });
});
