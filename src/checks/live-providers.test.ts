import pino from 'pino';
import { createLiveCheckProviders } from './live-providers';
import { CheckEnginesBusyError, CheckWorkerPool } from './check-worker.pool';
import { loadConfig } from '../config';
import type { CheckRun } from './check-task';
import type { FaceAnalysis } from './engines/face-analysis';
import { faceAnalysisKey } from './engines/face-analysis-memo';
import { documentStyle, packageImage } from '../../bench/checks/face-images';

const logger = pino({ level: 'silent' });

/** Needs the compiled worker (dist/src/checks/check.worker.js): `npm test` builds first. */
describe('createLiveCheckProviders with the embedded engines in a worker-thread pool', () => {
  it('runs face match and anti-spoof in a worker: a match passes, anti-spoof answers unknown with raw scores', async () => {
    const config = loadConfig({ CHECK_WORKERS: '1' }).checks;
    const providers = createLiveCheckProviders(config, logger);
    try {
      const selfie = packageImage('franck_04000.jpg');
      const [match, spoof] = await Promise.all([
        providers.faceMatcher.match({ document: await documentStyle(packageImage('franck_02221.jpg')), selfie }),
        providers.presentationAttackDetector.detect({ selfie, frames: [] }),
      ]);
      expect(match.verdict).toBe('pass');
      expect(match.template).toHaveLength(1024);
      expect(spoof.verdict).toBe('unknown');
      expect(spoof.reason).toMatch(/No offline presentation-attack model can gate a decision/);
      expect((spoof.details as { scores: { real: number }[] }).scores[0].real).toBeGreaterThan(0);
    } finally {
      await providers.close();
    }
  });

  it('serves the calls of the run that started first before a later run’s, and hands each call its run’s face analyses', async () => {
    const pool = await CheckWorkerPool.start({ workers: 1, queueLimit: 8, timeoutMs: 120_000, logger });
    try {
      const selfie = packageImage('franck_04000.jpg');
      const earlier: CheckRun = { faces: {}, startedAt: performance.now() };
      // The later run already holds an analysis of the selfie (as an earlier check of that run would have left it).
      const known: FaceAnalysis = { width: 1, height: 1, faces: [{ box: [0, 0, 1, 1], score: 1, embedding: [1], yaw: 0, pitch: 0, happy: 0, sharpness: 1, real: 0.123, live: 0.456 }] };
      const later: CheckRun = { faces: { [faceAnalysisKey(selfie)]: known }, startedAt: earlier.startedAt + 1 };
      const finished: string[] = [];
      const call = (name: string, run: CheckRun) => pool.run('antiSpoof', { selfie, frames: [] }, run).then((r) => (finished.push(name), r));
      // The one worker is busy with the earlier run's first call; the later run's call waits, then the earlier run's second arrives.
      const first = call('earlier 1', earlier);
      const other = call('later 1', later);
      const second = call('earlier 2', earlier);
      const [a, l, b] = await Promise.all([first, other, second]);
      expect(finished).toEqual(['earlier 1', 'earlier 2', 'later 1']);
      // The earlier run's first call analysed the selfie and left it to the run; the second reads the same scores.
      expect(Object.keys(earlier.faces)).toEqual([faceAnalysisKey(selfie)]);
      expect(b).toEqual(a);
      // The later run's call used the analysis its run held, not the model's.
      expect((l.details as { scores: unknown[] }).scores).toEqual([{ faces: 1, real: 0.123, live: 0.456 }]);
    } finally {
      await pool.close();
    }
  });

  it('refuses tasks past the queue limit at once, and answers error when the engine overruns its timeout', async () => {
    const pool = await CheckWorkerPool.start({ workers: 1, queueLimit: 1, timeoutMs: 60_000, logger });
    try {
      const input = { selfie: packageImage('audrey.jpg'), frames: [] };
      const running = pool.run('antiSpoof', input);
      const waiting = pool.run('antiSpoof', input);
      await expect(pool.run('antiSpoof', input)).rejects.toBeInstanceOf(CheckEnginesBusyError);
      await Promise.all([running, waiting]);
    } finally {
      await pool.close();
    }
    const providers = createLiveCheckProviders({ ...loadConfig({ CHECK_WORKERS: '1' }).checks, timeoutMs: 1 }, logger);
    try {
      const r = await providers.presentationAttackDetector.detect({ selfie: packageImage('audrey.jpg'), frames: [] });
      expect(r).toMatchObject({ verdict: 'error', reason: 'The check engine failed: The check engine did not answer within 1 ms.' });
    } finally {
      await providers.close();
    }
  });
});
