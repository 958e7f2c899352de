import { EmbeddedLivenessVerifier, IDENTITY_FRAMES_PER_STEP, POSE_FRAMES_ANALYSED } from './embedded-liveness.verifier';
import type { AnalysisParts, FaceAnalysis, FaceAnalyzer } from './face-analysis';
import type { ChallengeAction, ImageInput, LivenessChallenge, LivenessFrame } from '../check-providers';
import { HUMAN_FACE_MODEL } from './embedded-models';
import { biometricPolicy } from '../policy/biometric-policy';

/** `otherPerson`: the frame shows someone else than the reference (an orthogonal embedding). */
type Pose = { pitch?: number; happy?: number; otherPerson?: boolean };
const face = (p: Pose, embedded: boolean): FaceAnalysis => ({
  width: 640,
  height: 480,
  faces: [{ box: [200, 100, 200, 200], score: 0.99, embedding: embedded ? (p.otherPerson ? [0, 1, 0, 0] : [1, 0, 0, 0]) : [], yaw: 0, pitch: p.pitch ?? 0, happy: p.happy ?? 0.05, sharpness: 80 }],
  embedded,
});

/** A stand-in for the face model: each image's bytes name the pose it shows; it notes which images it was asked about, and which with the embedding. */
class PosesByImage implements FaceAnalyzer {
  readonly analysed: string[] = [];
  readonly embedded: string[] = [];
  constructor(private readonly poses: Map<string, Pose>) {}
  async analyze(image: ImageInput, parts?: AnalysisParts): Promise<FaceAnalysis> {
    const name = image.bytes.toString();
    const embedded = parts?.embedding !== false;
    if (!this.analysed.includes(name)) this.analysed.push(name);
    if (embedded) this.embedded.push(name);
    return face(this.poses.get(name) ?? {}, embedded);
  }
}

function capture(actions: ChallengeAction[], poses: Pose[][]): { challenge: LivenessChallenge; frames: LivenessFrame[]; poses: Map<string, Pose> } {
  const issuedAt = 1_000_000;
  const challenge: LivenessChallenge = { id: 'chl_1', issuedAt, steps: actions.map((action, i) => ({ action, nonce: `n${i}`, opensAt: issuedAt + i * 4000, closesAt: issuedAt + (i + 1) * 4000 })) };
  const byName = new Map<string, Pose>();
  const frames = poses.flatMap((list, s) =>
    list.map((p, k) => {
      byName.set(`frame ${s}.${k}`, p);
      return { stepIndex: s, nonce: `n${s}`, capturedAt: issuedAt + s * 4000 + 100 + k * 250, image: { bytes: Buffer.from(`frame ${s}.${k}`), contentType: 'image/jpeg' } };
    }),
  );
  return { challenge, frames, poses: byName };
}

const reference = { bytes: Buffer.from('selfie'), contentType: 'image/jpeg' };

describe('EmbeddedLivenessVerifier (frames analysed per step)', () => {
  it('analyses every frame of a smile step, so a smile whose peak lasts one frame passes, and 8 of a head pose’s 12', async () => {
    // Look up: the head rises steadily and is held. Smile: neutral, then a single frame past 0.8 (frame 4,
    // which 8 evenly spread frames of 12 would step over), then back.
    const lookUp = Array.from({ length: 12 }, (_, k) => ({ pitch: -Math.min(16, k * 2) }));
    const smile = Array.from({ length: 12 }, (_, k) => ({ happy: k === 4 ? 0.9 : 0.1 }));
    const { challenge, frames, poses } = capture(['look_up', 'smile'], [lookUp, smile]);
    const model = new PosesByImage(poses);
    const r = await new EmbeddedLivenessVerifier(model, biometricPolicy, HUMAN_FACE_MODEL).verify({ challenge, frames, referenceFaces: [reference] });
    expect(r.reason).toMatch(/^Every step \(look_up, smile\) was performed/);
    expect(r.verdict).toBe('pass');
    const analysedFrames = model.analysed.filter((n) => n.startsWith('frame'));
    expect(analysedFrames.filter((n) => n.startsWith('frame 0.'))).toHaveLength(POSE_FRAMES_ANALYSED);
    expect(analysedFrames.filter((n) => n.startsWith('frame 1.'))).toHaveLength(12);
    expect(r.details).toMatchObject({ frames: POSE_FRAMES_ANALYSED + 12, framesReceived: 24 });
  });

  it('compares a few spread frames of each step with the references, and always the frames that decide a step', async () => {
    const lookUp = Array.from({ length: 12 }, (_, k) => ({ pitch: -Math.min(16, k * 2) }));
    const smile = Array.from({ length: 12 }, (_, k) => ({ happy: k === 4 ? 0.9 : 0.1 }));
    const { challenge, frames, poses } = capture(['look_up', 'smile'], [lookUp, smile]);
    const model = new PosesByImage(poses);
    const r = await new EmbeddedLivenessVerifier(model, biometricPolicy, HUMAN_FACE_MODEL).verify({ challenge, frames, referenceFaces: [reference] });
    expect(r.verdict).toBe('pass');
    const smileEmbedded = model.embedded.filter((n) => n.startsWith('frame 1.'));
    // The smile step: its first, middle and last frames, the frame past 0.8 (1.4) and the neutral one before it (1.3).
    expect([...smileEmbedded].sort()).toEqual(['frame 1.0', 'frame 1.11', 'frame 1.3', 'frame 1.4', 'frame 1.6']);
    expect(model.embedded.filter((n) => n.startsWith('frame 0.')).length).toBeGreaterThanOrEqual(IDENTITY_FRAMES_PER_STEP);
    expect(model.embedded.filter((n) => n.startsWith('frame')).length).toBe((r.details as { identityFrames: number }).identityFrames);
    expect(model.embedded.length).toBeLessThan(model.analysed.length);
  });

  it('fails when the frame that shows the action is another person, though the spread frames are the reference’s', async () => {
    const lookUp = Array.from({ length: 12 }, (_, k) => ({ pitch: -Math.min(16, k * 2) }));
    const smile = Array.from({ length: 12 }, (_, k) => ({ happy: k === 4 ? 0.9 : 0.1, otherPerson: k === 4 }));
    const { challenge, frames, poses } = capture(['look_up', 'smile'], [lookUp, smile]);
    const r = await new EmbeddedLivenessVerifier(new PosesByImage(poses), biometricPolicy, HUMAN_FACE_MODEL).verify({ challenge, frames, referenceFaces: [reference] });
    expect(r.verdict).toBe('fail');
    expect(r.reason).toMatch(/^Frame 12 is not the person of the selfie and document/);
  });
});
