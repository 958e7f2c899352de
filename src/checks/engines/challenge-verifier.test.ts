import { framesPerAction, framesToAnalyse, verifyChallenge } from './challenge-verifier';
import type { FaceAnalysis } from './face-analysis';
import type { ChallengeAction, LivenessChallenge, LivenessFrame } from '../check-providers';
import { biometricPolicy } from '../policy/biometric-policy';

const policy = biometricPolicy.liveness;
const person = [1, 0, 0, 0];
const stranger = [0.3, 0.95, 0, 0];

function challenge(actions: ChallengeAction[], issuedAt = 1_000_000): LivenessChallenge {
  return {
    id: 'chl_1',
    issuedAt,
    steps: actions.map((action, i) => ({ action, nonce: `n${issuedAt}-${i}`, opensAt: issuedAt + i * 3000, closesAt: issuedAt + (i + 1) * 3000 })),
  };
}

type Pose = { yaw?: number; pitch?: number; happy?: number; embedding?: number[] };
const face = (p: Pose): FaceAnalysis => ({
  width: 640,
  height: 480,
  faces: [{ box: [200, 100, 200, 200], score: 0.99, embedding: p.embedding ?? person, yaw: p.yaw ?? 0, pitch: p.pitch ?? 0, happy: p.happy ?? 0.05, sharpness: 80 }],
});

/** What a person doing each action looks like: neutral, then moving past the threshold. */
function performed(action: ChallengeAction): Pose[] {
  switch (action) {
    case 'turn_left':
      return [{ yaw: 0 }, { yaw: -12 }, { yaw: -24 }, { yaw: -26 }];
    case 'turn_right':
      return [{ yaw: 1 }, { yaw: 11 }, { yaw: 23 }, { yaw: 25 }];
    case 'look_up':
      return [{ pitch: 0 }, { pitch: -8 }, { pitch: -15 }, { pitch: -16 }];
    case 'smile':
      return [{ happy: 0.1 }, { happy: 0.6 }, { happy: 0.95 }, { happy: 0.99 }];
  }
}

function capture(c: LivenessChallenge, poses: Pose[][]): { frames: LivenessFrame[]; analyses: FaceAnalysis[] } {
  const frames: LivenessFrame[] = [];
  const analyses: FaceAnalysis[] = [];
  poses.forEach((list, s) =>
    list.forEach((p, i) => {
      const step = c.steps[s];
      frames.push({ stepIndex: s, nonce: step.nonce, capturedAt: step.opensAt + 300 + i * 500, image: { bytes: Buffer.alloc(0), contentType: 'image/jpeg' } });
      analyses.push(face(p));
    }),
  );
  return { frames, analyses };
}

const run = (c: LivenessChallenge, x: { frames: LivenessFrame[]; analyses: FaceAnalysis[] }, refs = [person, person]) =>
  verifyChallenge({ challenge: c, ...x, referenceEmbeddings: refs, policy });

describe('verifyChallenge (liveness rules on per-frame measurements)', () => {
  it('passes when each step is performed inside its window, in order, by the same person', () => {
    const c = challenge(['turn_left', 'smile', 'look_up']);
    const r = run(c, capture(c, c.steps.map((s) => performed(s.action))));
    expect(r.reason).toMatch(/^Every step \(turn_left, smile, look_up\) was performed/);
    expect(r.passed).toBe(true);
    expect(r.template).toHaveLength(4);
  });

  it('fails a static photo held in front of the camera', () => {
    const c = challenge(['turn_right', 'smile']);
    const r = run(c, capture(c, [[{ yaw: 3 }, { yaw: 3.4 }, { yaw: 2.9 }, { yaw: 3.1 }], [{ yaw: 3 }, { yaw: 3.2 }, { yaw: 3 }]]));
    expect(r.passed).toBe(false);
    expect(r.reason).toMatch(/did not move across 7 frames.*static image/);
  });

  it('fails frames replayed from another challenge (their nonces are not this challenge’s)', () => {
    const other = challenge(['turn_left', 'smile'], 2_000_000);
    const replay = capture(other, other.steps.map((s) => performed(s.action)));
    const mine = challenge(['turn_left', 'smile'], 2_000_000);
    mine.steps = mine.steps.map((s, i) => ({ ...s, nonce: `fresh-${i}` }));
    const r = run(mine, replay);
    expect(r.passed).toBe(false);
    expect(r.reason).toMatch(/Frame 0 carries a nonce that is not step 0's: frames replayed from another challenge/);
  });

  it('fails frames submitted out of order', () => {
    const c = challenge(['turn_left', 'smile']);
    const x = capture(c, c.steps.map((s) => performed(s.action)));
    [x.frames[2], x.frames[3]] = [x.frames[3], x.frames[2]];
    const r = run(c, x);
    expect(r.reason).toBe('Frames are out of order: frame 3 comes before frame 2 in time or step.');
  });

  it('orders frames the server received at the same time (sent late, at their step\'s close) by the page\'s own stamps', () => {
    const c = challenge(['turn_left', 'smile']);
    // Step 0 performed in its first four frames; its last two arrived in the grace after it closed.
    const x = capture(c, [[...performed('turn_left'), { yaw: -25 }, { yaw: -24 }], performed('smile')]);
    const close = c.steps[0].closesAt;
    const late = x.frames.map((f, i) => (f.stepIndex === 0 && i >= 4 ? { ...f, capturedAt: close, clientCapturedAt: c.steps[0].opensAt + 2000 + i } : f));
    const passed = run(c, { ...x, frames: late });
    expect(passed.reason).toMatch(/^Every step/);
    expect(passed.details.framesAfterWindow).toBe(2);
    // The same server time and no later stamp of the page's own: out of order, as before.
    const tied = late.map((f, i) => (f.stepIndex === 0 && i >= 4 ? { ...f, clientCapturedAt: c.steps[0].opensAt + 2000 } : f));
    expect(run(c, { ...x, frames: tied }).reason).toBe('Frames are out of order: frame 5 comes before frame 4 in time or step.');
  });

  it('never passes a step on frames that arrived after its window closed (made up to 30 s after the page learnt the action)', () => {
    const c = challenge(['turn_left', 'smile']);
    const close = c.steps[0].closesAt;
    // Every frame of step 0 arrives in the upload grace: they would show the turn, stamped in order by the page.
    const x = capture(c, c.steps.map((s) => performed(s.action)));
    const allLate = x.frames.map((f, i) => (f.stepIndex === 0 ? { ...f, capturedAt: close, clientCapturedAt: c.steps[0].opensAt + 500 + i } : f));
    const r = run(c, { ...x, frames: allLate });
    expect(r.passed).toBe(false);
    expect(r.reason).toBe('Too few frames for step 0 (turn_left) arrived inside its window: 0, at least 3 needed (4 more arrived after it closed, and count only against a pass).');
    // Neutral frames in time and the turn only in late frames: the action was not shown inside the window.
    const neutral = capture(c, [[{ yaw: 0 }, { yaw: 1 }, { yaw: 0 }, { yaw: -24 }, { yaw: -26 }], performed('smile')]);
    const turnLate = neutral.frames.map((f, i) => (f.stepIndex === 0 && i >= 3 ? { ...f, capturedAt: close, clientCapturedAt: c.steps[0].opensAt + 2500 + i } : f));
    expect(run(c, { ...neutral, frames: turnLate }).reason).toMatch(/^Step 0 \(turn_left\) was not performed: turn to the left \(degrees\) reached 0 from the step's first frame/);
  });

  it('analyses the frames that arrived in the window first, and late frames only in what the budget leaves', () => {
    const c = challenge(['turn_left', 'smile']);
    const step = c.steps[0];
    // 3 frames in the window, 9 in the grace after it: a budget of 8 keeps the 3 and 5 late ones, evenly spread.
    const frames: LivenessFrame[] = Array.from({ length: 12 }, (_, i) => ({ stepIndex: 0, nonce: step.nonce, capturedAt: i < 3 ? step.opensAt + 500 * i : step.closesAt, clientCapturedAt: step.opensAt + 250 * i, image: { bytes: Buffer.alloc(0), contentType: 'image/jpeg' } }));
    expect(framesToAnalyse(frames, 8, c)).toEqual([0, 1, 2, 3, 5, 7, 9, 11]);
    // Without the challenge (no arrival to go by), the budget is spread over every frame, as before.
    expect(framesToAnalyse(frames, 8)).toEqual([0, 2, 3, 5, 6, 8, 9, 11]);
  });

  it('declines on a late frame of another person: late frames count against a pass', () => {
    const c = challenge(['turn_left', 'smile']);
    const x = capture(c, [[...performed('turn_left'), { yaw: -25, embedding: stranger }], performed('smile')]);
    const frames = x.frames.map((f, i) => (i === 4 ? { ...f, capturedAt: c.steps[0].closesAt, clientCapturedAt: c.steps[0].opensAt + 2900 } : f));
    expect(run(c, { ...x, frames }).reason).toMatch(/^Frame 4 is not the person of the selfie and document/);
  });

  it('fails a step with too few frames', () => {
    const c = challenge(['turn_left', 'smile']);
    const r = run(c, capture(c, [performed('turn_left'), [{ happy: 0.1 }, { happy: 0.95 }]]));
    expect(r.reason).toBe('Too few frames for step 1 (smile) arrived inside its window: 2, at least 3 needed.');
  });

  it('fails a frame captured after its step closed', () => {
    const c = challenge(['turn_left', 'smile']);
    const x = capture(c, c.steps.map((s) => performed(s.action)));
    x.frames[3].capturedAt = c.steps[0].closesAt + 2000;
    x.frames.slice(4).forEach((f, i) => (f.capturedAt = c.steps[0].closesAt + 2100 + i * 10));
    expect(run(c, x).reason).toBe("Frame 3 was captured outside step 0's window.");
  });

  it('fails when a frame shows another person than the selfie and document', () => {
    const c = challenge(['turn_left', 'smile']);
    const poses = c.steps.map((s) => performed(s.action));
    poses[1][2] = { ...poses[1][2], embedding: stranger };
    const r = run(c, capture(c, poses));
    expect(r.reason).toMatch(/^Frame 6 is not the person of the selfie and document \(similarity 0\.3/);
  });

  it('fails a step whose window shows a different action (a recording of another challenge order)', () => {
    const c = challenge(['turn_left', 'turn_right']);
    const r = run(c, capture(c, [performed('turn_right'), performed('turn_left')]));
    expect(r.passed).toBe(false);
    expect(r.reason).toMatch(/^Step 0 \(turn_left\) was not performed/);
  });

  it('fails a neutral window where the person does nothing asked', () => {
    const c = challenge(['look_up', 'smile']);
    const r = run(c, capture(c, [[{ yaw: 4 }, { yaw: -3 }, { yaw: 5 }, { pitch: 2 }], [{ yaw: 2 }, { happy: 0.2 }, { yaw: 0 }]]));
    expect(r.reason).toMatch(/^Step 0 \(look_up\) was not performed: tilt upwards \(degrees\) reached/);
  });

  it('fails a smile already on the face when its window opened (no crossing)', () => {
    const c = challenge(['turn_left', 'smile']);
    const r = run(c, capture(c, [performed('turn_left'), [{ happy: 0.9 }, { happy: 0.95 }, { happy: 0.97 }]]));
    expect(r.reason).toMatch(/^Step 1 \(smile\) did not start from a neutral face/);
  });

  it('counts a turn from the step’s first frame, so a head held turned all along does not pass', () => {
    const c = challenge(['turn_left', 'smile']);
    const r = run(c, capture(c, [[{ yaw: -25 }, { yaw: -26 }, { yaw: -24 }, { yaw: -27 }], performed('smile')]));
    expect(r.reason).toMatch(/^Step 0 \(turn_left\) was not performed: turn to the left \(degrees\) reached 2 from the step's first frame/);
  });
});

describe('framesToAnalyse (the frames of each step that get a face analysis)', () => {
  const frames = (perStep: number[]): LivenessFrame[] => perStep.flatMap((n, step) => Array.from({ length: n }, (_, i) => ({ stepIndex: step, nonce: `n-${step}`, capturedAt: step * 3000 + i * 100, image: { bytes: Buffer.alloc(0), contentType: 'image/jpeg' } })));

  it('keeps each step’s first and last frame and spreads the rest evenly', () => {
    // Step 0: frames 0-11, step 1: frames 12-23.
    expect(framesToAnalyse(frames([12, 12]), 5)).toEqual([0, 3, 6, 8, 11, 12, 15, 18, 20, 23]);
  });

  it('keeps every frame of a step that has no more than asked, so a short step still fails for too few frames', () => {
    expect(framesToAnalyse(frames([3, 20]), 5)).toEqual([0, 1, 2, 3, 8, 13, 17, 22]);
    const c = challenge(['turn_left', 'smile']);
    const captured = capture(c, [performed('turn_left').slice(0, 2), performed('smile')]);
    const keep = framesToAnalyse(captured.frames, 5);
    const r = run(c, { frames: keep.map((i) => captured.frames[i]), analyses: keep.map((i) => captured.analyses[i]) });
    expect(r.reason).toMatch(/^Too few frames for step 0/);
  });

  it('by action: every frame of a smile step, the pose budget of a turn', () => {
    const c = challenge(['turn_left', 'smile', 'look_up']);
    // Steps of 12 frames: 0-11 a turn, 12-23 a smile, 24-35 a look up.
    const keep = framesToAnalyse(frames([12, 12, 12]), framesPerAction(c, 3));
    expect(keep).toEqual([0, 6, 11, ...Array.from({ length: 12 }, (_, i) => 12 + i), 24, 30, 35]);
  });
});
