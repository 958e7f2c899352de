import type { TextLine } from './mrz-locator';

/** A connected group of dark pixels: its bounding box and how many pixels it has. */
export type Component = { left: number; right: number; top: number; bottom: number; pixels: number };

/**
 * The connected components of a mask (8-connected), found run by run: each row's dark runs are joined to
 * the runs they touch in the row above (union-find), so the cost is in runs, not pixels.
 */
export function connectedComponents(mask: Uint8Array, w: number, h: number): Component[] {
  const parent: number[] = [];
  const find = (a: number) => {
    while (parent[a] !== a) a = parent[a] = parent[parent[a]];
    return a;
  };
  const runs: { y: number; x0: number; x1: number; id: number }[] = [];
  let prevStart = 0;
  let prevEnd = 0;
  for (let y = 0; y < h; y++) {
    const rowStart = runs.length;
    let x = 0;
    while (x < w) {
      if (!mask[y * w + x]) {
        x++;
        continue;
      }
      const x0 = x;
      while (x < w && mask[y * w + x]) x++;
      const id = parent.length;
      parent.push(id);
      runs.push({ y, x0, x1: x - 1, id });
      // Runs of the row above that touch this one (8-connected: one column of overlap either side).
      for (let k = prevStart; k < prevEnd; k++) {
        const r = runs[k];
        if (r.x1 < x0 - 1) continue;
        if (r.x0 > x) break;
        const a = find(r.id);
        const b = find(id);
        if (a !== b) parent[Math.max(a, b)] = Math.min(a, b);
      }
    }
    prevStart = rowStart;
    prevEnd = runs.length;
  }
  const boxes = new Map<number, Component>();
  for (const r of runs) {
    const root = find(r.id);
    const b = boxes.get(root);
    if (!b) boxes.set(root, { left: r.x0, right: r.x1, top: r.y, bottom: r.y, pixels: r.x1 - r.x0 + 1 });
    else {
      b.left = Math.min(b.left, r.x0);
      b.right = Math.max(b.right, r.x1);
      b.bottom = r.y;
      b.pixels += r.x1 - r.x0 + 1;
    }
  }
  return [...boxes.values()];
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

/**
 * Text lines as chains of glyph-sized components, each close to the next one on its left and at the same
 * height: unlike bands of rows (mrz-locator.ts `textLines`), a chain stops at the gap between the document
 * and print beside it (a newspaper on the table, a form), so lines of the document and of the print around
 * it that share rows are not merged, and a line of text above a card's zone that runs into the zone's rows
 * at one end stays a line of its own. Glyphs are 8-60 px high at the analysis width; a chain keeps a
 * glyph whose gap to the chain is under one line height and which overlaps the chain's rows by half its own
 * height (the filler `<` is shorter than a letter and sits in the middle of the line). Lines of at least
 * 8 glyphs, at least four times as wide as high, top to bottom.
 */
export function componentLines(mask: Uint8Array, w: number, h: number): TextLine[] {
  const glyphs = connectedComponents(mask, w, h)
    .filter((c) => {
      const ch = c.bottom - c.top + 1;
      const cw = c.right - c.left + 1;
      // Glyph-sized (blur can join a few glyphs, so a component may be several glyphs wide), not a speck.
      return ch >= 6 && ch <= 60 && c.pixels >= 12 && cw <= 8 * ch;
    })
    .sort((a, b) => a.left - b.left);
  type Chain = { glyphs: Component[]; right: number; top: number; bottom: number; height: number };
  const open: Chain[] = [];
  const done: Chain[] = [];
  for (const g of glyphs) {
    const gh = g.bottom - g.top + 1;
    let best: Chain | undefined;
    let bestGap = Infinity;
    for (let i = open.length - 1; i >= 0; i--) {
      const c = open[i];
      const gap = g.left - c.right;
      // A chain that has fallen far behind the glyphs being placed is finished.
      if (gap > 3 * c.height) {
        done.push(c);
        open.splice(i, 1);
        continue;
      }
      if (gap > 1.0 * c.height || gap < -0.3 * c.height) continue;
      if (gh > 1.6 * c.height) continue;
      const overlap = Math.min(g.bottom, c.bottom) - Math.max(g.top, c.top);
      if (overlap < 0.5 * Math.min(gh, c.height)) continue;
      if (gap < bestGap) {
        bestGap = gap;
        best = c;
      }
    }
    if (!best) {
      open.push({ glyphs: [g], right: g.right, top: g.top, bottom: g.bottom, height: gh });
      continue;
    }
    best.glyphs.push(g);
    best.right = Math.max(best.right, g.right);
    // The chain's rows follow its tallest glyphs (letters and digits), so a run of fillers does not shrink it.
    const tall = best.glyphs.filter((x) => x.bottom - x.top + 1 >= 0.75 * Math.max(...best!.glyphs.map((y) => y.bottom - y.top + 1)));
    best.top = median(tall.map((x) => x.top));
    best.bottom = median(tall.map((x) => x.bottom));
    best.height = best.bottom - best.top + 1;
  }
  return [...done, ...open]
    .filter((c) => c.glyphs.length >= 8 && c.right - c.glyphs[0].left + 1 >= 4 * c.height)
    .map((c) => ({ top: c.top, bottom: c.bottom, left: c.glyphs[0].left, right: c.right }))
    .sort((a, b) => a.top - b.top || a.left - b.left);
}

/**
 * Groups of 2 or 3 component lines stacked like an MRZ's: each the next one's neighbour below (the gap
 * between them under 1.6 line heights, no other line between them in their columns), of similar height,
 * overlapping by most of the shorter one's width. Bottom line first, as `lineGroups` gives them.
 */
export function stackedGroups(lines: TextLine[]): TextLine[][] {
  const height = (l: TextLine) => l.bottom - l.top + 1;
  const overlap = (a: TextLine, b: TextLine) => Math.min(a.right, b.right) - Math.max(a.left, b.left);
  const below = (a: TextLine): TextLine | undefined => {
    let best: TextLine | undefined;
    for (const b of lines) {
      if (b === a || b.top <= a.bottom - 0.3 * height(a)) continue;
      if (overlap(a, b) < 0.6 * Math.min(a.right - a.left, b.right - b.left)) continue;
      if (!best || b.top < best.top) best = b;
    }
    if (!best) return undefined;
    const ratio = height(best) / height(a);
    return ratio < 1.7 && ratio > 1 / 1.7 && best.top - a.bottom <= 1.6 * Math.max(height(a), height(best)) ? best : undefined;
  };
  const groups: TextLine[][] = [];
  for (const a of lines) {
    const b = below(a);
    if (!b) continue;
    groups.push([b, a]);
    const c = below(b);
    if (c) groups.push([c, b, a]);
  }
  return groups;
}
