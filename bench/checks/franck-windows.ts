/**
 * Computes test/fixtures/liveness/franck-windows.json: for each challenge action, the start (seconds) of
 * every 3 s window of franck.mp4 that alone answers that action under the production policy, with the
 * T2 product test's references (the selfie franck_04000.jpg and the passport printed with franck_02221.jpg).
 * Run (CPU-heavy, ~800 frames): `npm run build && nice -n 10 node dist/bench/checks/franck-windows.js > test/fixtures/liveness/franck-windows.json`
 * Env: FRANCK_FPS (default 4, the rate the test uploads at), FRANCK_SECONDS (default 200, the whole video).
 */
import type { ChallengeAction } from '../../src/checks/check-providers';
import { HumanFaceAnalyzer } from '../../src/checks/engines/human-face.analyzer';
import { biometricPolicy } from '../../src/checks/policy/biometric-policy';
import { CHALLENGE_ACTIONS } from '../../src/hosted-flow/liveness-challenge';
import { FRANCK_PASSPORT, renderDocumentWithPortrait } from './document-with-portrait';
import { franckTimeline, windowPasses, windowsOf } from './eval-liveness';
import { packageImage } from './face-images';

async function main() {
  const fps = Number(process.env.FRANCK_FPS ?? 4);
  const seconds = Number(process.env.FRANCK_SECONDS ?? 200);
  const analyzer = await HumanFaceAnalyzer.start();
  const document = await renderDocumentWithPortrait(FRANCK_PASSPORT, packageImage('franck_02221.jpg'));
  const references: number[][] = [];
  for (const image of [packageImage('franck_04000.jpg'), document]) {
    const a = await analyzer.analyze(image);
    if (a.faces.length !== 1) throw new Error(`a reference shows ${a.faces.length} faces`);
    references.push(a.faces[0].embedding);
  }
  const timeline = await franckTimeline(analyzer, fps, seconds);
  const out: Record<string, number[]> = {};
  for (const action of CHALLENGE_ACTIONS as ChallengeAction[])
    out[action] = windowsOf(timeline, 0.5)
      .filter((w) => windowPasses(action, w, references, biometricPolicy.liveness))
      .map((w) => w[0].t);
  console.log(JSON.stringify(out));
}

void main().then(
  () => process.exit(0),
  (e) => {
    console.error(e);
    process.exit(1);
  },
);
