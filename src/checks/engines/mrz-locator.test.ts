import { createCanvas } from '@napi-rs/canvas';
import { greyOf } from './image-tools';
import { lineExtent, mrzGroup, whitenEdgeBars, type TextLine } from './mrz-locator';

/** Run-start counts per column: dense text from `from` to `to`, every 8 px (one stroke), plus sparse noise. */
function columns(width: number, from: number, to: number, noise: number[] = []): Float64Array {
  const cols = new Float64Array(width);
  for (let x = from; x <= to; x += 8) cols[x] = 20;
  for (const x of noise) cols[x] = 1;
  return cols;
}

describe('lineExtent', () => {
  it('spans the dense text and ignores sparse noise beside it', () => {
    const noise = [5, 40, 80, 900, 950];
    const { left, right } = lineExtent(columns(1000, 200, 800, noise), 28);
    expect(left).toBeGreaterThanOrEqual(195);
    expect(left).toBeLessThanOrEqual(205);
    expect(right).toBeGreaterThanOrEqual(795);
    expect(right).toBeLessThanOrEqual(805);
  });

  it('does not bridge a gap wider than a character or so to another text block', () => {
    const cols = columns(1000, 100, 300);
    for (let x = 400; x <= 900; x += 8) cols[x] = 20;
    const { left, right } = lineExtent(cols, 28);
    expect(left).toBeGreaterThan(390);
    expect(right).toBeGreaterThan(890);
  });
});

const line = (top: number, height: number, left: number, right: number): TextLine => ({ top, bottom: top + height - 1, left, right });

describe('mrzGroup', () => {
  it('takes the lowest group of evenly spaced wide lines, skipping a stray mark below the zone', () => {
    const visual = [line(100, 20, 400, 600), line(150, 20, 400, 700)];
    const zone = [line(500, 28, 100, 900), line(540, 28, 100, 902), line(580, 28, 101, 900)];
    const stray = line(700, 14, 600, 800);
    expect(mrzGroup([...visual, ...zone, stray])).toEqual([zone[2], zone[1], zone[0]]);
  });

  it('keeps a line whose extent ran into noise on one side when it overlaps the others', () => {
    const zone = [line(500, 28, 100, 900), line(540, 28, 20, 900)];
    expect(mrzGroup(zone)).toHaveLength(2);
  });

  it('finds nothing when no two wide lines are close and alike', () => {
    expect(mrzGroup([line(100, 28, 100, 900), line(400, 28, 100, 900)])).toBeUndefined();
    expect(mrzGroup([line(500, 28, 100, 900), line(540, 60, 100, 900)])).toBeUndefined();
  });
});

describe('whitenEdgeBars', () => {
  it('paints out a dark bar at the strip end and leaves the characters', () => {
    const c = createCanvas(400, 100);
    const ctx = c.getContext('2d');
    ctx.fillStyle = '#eee';
    ctx.fillRect(0, 0, 400, 100);
    ctx.fillStyle = '#333';
    ctx.fillRect(0, 0, 30, 100); // the table beside the document
    for (let x = 60; x < 380; x += 20) ctx.fillRect(x, 30, 6, 40); // characters' strokes
    const g = greyOf(whitenEdgeBars(c));
    const at = (x: number, y: number) => g.data[y * g.width + x];
    expect(at(10, 50)).toBeGreaterThan(200);
    expect(at(62, 50)).toBeLessThan(100);
    expect(at(362, 50)).toBeLessThan(100);
  });
});
