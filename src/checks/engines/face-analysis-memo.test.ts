import { MemoFaceAnalyzer } from './face-analysis-memo';
import { HumanFaceAnalyzer } from './human-face.analyzer';
import type { ImageInput } from '../check-providers';
import type { FaceAnalysis, FaceAnalyzer } from './face-analysis';
import { packageImage } from '../../../bench/checks/face-images';

/** The face model, counting the images it really analysed. */
class Counted implements FaceAnalyzer {
  calls = 0;
  constructor(private readonly inner: FaceAnalyzer) {}
  analyze(image: ImageInput): Promise<FaceAnalysis> {
    this.calls++;
    return this.inner.analyze(image);
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
