import { componentLines, connectedComponents, stackedGroups } from './mrz-component-lines';
import { zoneMeasure } from './mrz-zone-candidates';

const W = 1200;
const H = 700;

/** Paints `count` glyph blocks (`glyph` wide, `height` high, a hole in each) every `pitch` px from `left`, on the row `top`. */
function paint(mask: Uint8Array, top: number, height: number, left: number, count: number, pitch: number, glyph = Math.round(pitch * 0.6)) {
  for (let c = 0; c < count; c++)
    for (let y = top; y < top + height; y++)
      for (let dx = 0; dx < glyph; dx++) {
        const hole = y > top + 2 && y < top + height - 3 && dx > 2 && dx < glyph - 3;
        if (!hole) mask[y * W + left + c * pitch + dx] = 1;
      }
}

describe('connectedComponents', () => {
  it('finds each glyph as one component with its box, joining diagonal neighbours', () => {
    const mask = new Uint8Array(W * H);
    paint(mask, 10, 20, 5, 3, 20);
    mask[40 * W + 100] = mask[41 * W + 101] = 1;
    const boxes = connectedComponents(mask, W, H).sort((a, b) => a.left - b.left);
    expect(boxes).toHaveLength(4);
    expect(boxes[0]).toMatchObject({ left: 5, right: 16, top: 10, bottom: 29 });
    expect(boxes[3]).toMatchObject({ left: 100, right: 101, top: 40, bottom: 41, pixels: 2 });
  });
});

describe('componentLines and stackedGroups', () => {
  it('keep a TD1 zone three lines of 30 when print beside the document shares its rows', () => {
    const mask = new Uint8Array(W * H);
    // The zone: three lines of 30 glyphs, 25 px apart, 22 px high.
    for (let i = 0; i < 3; i++) paint(mask, 500 + i * 40, 22, 270, 30, 25);
    // A newspaper beside the document, smaller print on rows that overlap the zone's (offset by half a line).
    for (let r = 0; r < 12; r++) {
      paint(mask, 470 + r * 14, 9, 10, 20, 11);
      paint(mask, 470 + r * 14, 9, 1040, 13, 11);
    }
    const lines = componentLines(mask, W, H);
    const zone = lines.filter((l) => l.left >= 260 && l.left <= 280 && l.top >= 490);
    expect(zone).toHaveLength(3);
    for (const l of zone) {
      expect(l.right).toBeGreaterThan(270 + 29 * 25);
      expect(l.right).toBeLessThan(1030);
    }
    const groups = stackedGroups(lines).filter((g) => g.length === 3 && g.every((l) => zone.includes(l)));
    expect(groups).toHaveLength(1);
    const m = zoneMeasure(mask, W, groups[0]);
    expect(m.chars).toBe(30);
    expect(m.score).toBeGreaterThan(0.3);
  });

  it('finds no line in scattered specks or in a lone word', () => {
    const mask = new Uint8Array(W * H);
    for (let i = 0; i < 400; i++) mask[((i * 7919) % H) * W + ((i * 104729) % W)] = 1;
    paint(mask, 100, 20, 100, 5, 24);
    expect(componentLines(mask, W, H)).toEqual([]);
  });
});
