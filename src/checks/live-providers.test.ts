import pino from 'pino';
import { createLiveCheckProviders } from './live-providers';
import { CheckEnginesBusyError, CheckWorkerPool } from './check-worker.pool';
import { loadConfig } from '../config';
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
