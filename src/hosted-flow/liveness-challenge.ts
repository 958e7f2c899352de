import { randomBytes, randomInt } from 'node:crypto';
import type { ChallengeAction, LivenessChallenge } from '../checks/check-providers';

export const CHALLENGE_ACTIONS: readonly ChallengeAction[] = ['turn_left', 'turn_right', 'look_up', 'smile'];
/** Time the page has to show a step and film it; the next step opens when one closes. */
export const STEP_WINDOW_MS = 4_000;
/** Time between issue and the first step, for the page to show the instruction. */
export const CHALLENGE_LEAD_MS = 1_500;
/** A frame may arrive this long after its step closed (slow mobile uplinks). */
export const FRAME_UPLOAD_GRACE_MS = 30_000;
/** Frames per second the page must send per step. */
export const MIN_FRAMES_PER_SECOND = 5;

/** 2 or 3 distinct actions in random order, each with its own nonce and window (server-issued, never chosen by the page). */
export function issueChallenge(now: number): LivenessChallenge {
  const pool = [...CHALLENGE_ACTIONS];
  const count = 2 + randomInt(2);
  const steps = [];
  for (let i = 0; i < count; i++) {
    const action = pool.splice(randomInt(pool.length), 1)[0];
    const opensAt = now + CHALLENGE_LEAD_MS + i * STEP_WINDOW_MS;
    steps.push({ action, nonce: randomBytes(12).toString('base64url'), opensAt, closesAt: opensAt + STEP_WINDOW_MS });
  }
  return { id: `chl_${randomBytes(12).toString('base64url')}`, issuedAt: now, steps };
}

/** Why a frame does not belong to the challenge, or null when it does. */
export function frameProblem(challenge: LivenessChallenge, frame: { stepIndex: number; nonce: string; capturedAt: number }, receivedAt: number): string | null {
  const step = challenge.steps[frame.stepIndex];
  if (!step) return 'step is not a step of the current challenge';
  if (step.nonce !== frame.nonce) return 'nonce does not match the step';
  if (receivedAt < step.opensAt) return 'the step has not opened yet';
  if (frame.capturedAt < step.opensAt || frame.capturedAt > step.closesAt) return 'captured_at is outside the step window';
  if (receivedAt > step.closesAt + FRAME_UPLOAD_GRACE_MS) return 'the step window has closed';
  if (frame.capturedAt > receivedAt + 2_000) return 'captured_at is in the future';
  return null;
}
