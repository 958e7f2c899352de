import { MemoFaceAnalyzer } from './face-analysis-memo';
import { HumanFaceAnalyzer } from './human-face.analyzer';
import type { ImageInput } from '../check-providers';
import type { AnalysisParts, FaceAnalysis, FaceAnalyzer } from './face-analysis';
import { packageImage } from '../../../bench/checks/face-images';

/** The face model, counting the images it really analysed. */
class Counted implements FaceAnalyzer {
  calls = 0;
  constructor(private readonly inner: FaceAnalyzer) {}
  analyze(image: ImageInput, parts?: AnalysisParts): Promise<FaceAnalysis> {
    this.calls++;
    return this.inner.analyze(image, parts);
  }
}

describe('MemoFaceAnalyzer (one analysis per image across a session’s checks)', () => {
  let human: HumanFaceAnalyzer;
  beforeAll(async () => {
    human = await HumanFaceAnalyzer.start();
  });

  it('rests on the face model giving the same bytes the same analysis, whatever it analysed before', async () => {
    const selfie = packageImage('franck_04000.jpg');
    const first = await human.analyze(selfie);
    await human.analyze(packageImage('audrey.jpg'));
    expect(await human.analyze({ bytes: Buffer.from(selfie.bytes), contentType: 'image/jpeg' })).toEqual(first);
  });

  it('measures the same faces without the embedding as with it, only the embedding left out', async () => {
    const frame = packageImage('franck_02221.jpg');
    const full = await human.analyze(frame);
    const lite = await human.analyze(frame, { embedding: false });
    expect(full.embedded).toBe(true);
    expect(lite.embedded).toBe(false);
    expect(full.faces[0].embedding.length).toBeGreaterThan(100);
    expect(lite.faces.map((f) => f.embedding)).toEqual([[]]);
    expect(lite.faces.map(({ embedding: _, ...rest }) => rest)).toEqual(full.faces.map(({ embedding: _, ...rest }) => rest));
    // Human keeps a call's config: the next call asking for everything gets the embedding again.
    expect(await human.analyze(frame)).toEqual(full);
  });

  it('serves a call without the embedding from any analysis, and one with it only from a full analysis, which it then keeps', async () => {
    const model = new Counted(human);
    const frame = packageImage('franck_02221.jpg');
    const liveness = new MemoFaceAnalyzer(model);
    const lite = await liveness.analyze(frame, { embedding: false });
    expect(await liveness.analyze(frame, { embedding: false })).toBe(lite);
    expect(model.calls).toBe(1);
    const full = await liveness.analyze(frame);
    expect(full.embedded).toBe(true);
    expect(model.calls).toBe(2);
    // The next check gets the full analysis, whatever it asks for.
    const antiSpoof = new MemoFaceAnalyzer(model, liveness.computed);
    expect(await antiSpoof.analyze(frame, { embedding: false })).toBe(full);
    expect(await antiSpoof.analyze(frame)).toBe(full);
    expect(model.calls).toBe(2);
  });

  it('analyses each distinct image once, reuses what an earlier check analysed, and hands on only its own', async () => {
    const model = new Counted(human);
    const selfie = packageImage('franck_04000.jpg');
    const frame = packageImage('franck_02221.jpg');
    const faceMatch = new MemoFaceAnalyzer(model);
    const matched = await faceMatch.analyze(selfie);
    expect(matched.faces).toHaveLength(1);
    expect(model.calls).toBe(1);

    // The next check of the run gets the first one's analyses: the selfie (a copy of its bytes, as a worker receives it) is not analysed again.
    const liveness = new MemoFaceAnalyzer(model, faceMatch.computed);
    expect(await liveness.analyze({ bytes: Buffer.from(selfie.bytes), contentType: 'image/jpeg' })).toBe(matched);
    await liveness.analyze(frame);
    await liveness.analyze(frame);
    expect(model.calls).toBe(2);
    expect(Object.keys(liveness.computed)).toHaveLength(1);
  });
});
