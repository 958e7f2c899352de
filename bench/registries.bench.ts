/**
 * T4 registry checks (docs/checks.md, "Business registries"), against the local registry server of the
 * tests (test/helpers/registry-server.ts), answering in each registry's documented shapes:
 *
 * (Part 1, bench/t4-decision.bench.ts, measures the same goal through the built server.)
 *
 * 1. Latency: the four checks of one session with every registry answering in 50 ms, 300 sessions one
 *    after another; the goal is at most 300 ms at p99 added to a T4 decision (the checks run beside the
 *    capture checks, so what they add is at most their own duration).
 * 2. Limits: 200 concurrent sessions with distinct identifiers through two limiter instances (sharing
 *    Redis when REDIS_URL is set, as two server instances would), with the windows scaled by SCALE so the
 *    run takes seconds, not minutes; every request the registry server counted is checked against each
 *    registry's limit scaled the same way, over every window wherever it starts. A session whose wait
 *    would pass the bound is retried after a pause, as the job queue would retry it.
 *
 * Run: npm run bench:registries  (REDIS_URL=redis://127.0.0.1:6379/N for the shared limiter)
 */
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import readline from 'node:readline';
import { startRegistryServer, TEST_ABR_GUID, TEST_CH_KEY } from '../test/helpers/registry-server';
import { AbnLookupRegistry } from '../src/registries/abn-lookup.registry';
import type { BusinessRegistry, RegistryName } from '../src/registries/business-registry';
import { BusinessChecksService } from '../src/registries/business-checks.service';
import { CompaniesHouseRegistry } from '../src/registries/companies-house.registry';
import { GleifRegistry } from '../src/registries/gleif.registry';
import { MemoryRegistryRateLimiter, RedisRegistryRateLimiter, REGISTRY_LIMITS, RegistryBusyError, type RegistryRateLimiter } from '../src/registries/registry-rate-limiter';
import { RegistryCache } from '../src/registries/registry-cache';
import { SecEdgarRegistry } from '../src/registries/sec-edgar.registry';
import { abn, lei, pct } from './registry-identifiers';

const SCALE = Number(process.env.SCALE ?? 0.2);
const SESSIONS = Number(process.env.SESSIONS ?? 200);
/** Documented limits: requests per window (ms). */
const LIMITS: Record<'gleif' | 'sec' | 'ch' | 'abr', { n: number; windowMs: number }> = {
  gleif: { n: 60, windowMs: 60_000 },
  sec: { n: 10, windowMs: 1000 },
  ch: { n: 600, windowMs: 300_000 },
  abr: { n: 2, windowMs: 1000 },
};

/** The largest number of requests inside any window of `windowMs`, wherever it starts. */
function busiestWindow(times: number[], windowMs: number): number {
  const t = [...times].sort((a, b) => a - b);
  let best = 0;
  for (let i = 0, j = 0; i < t.length; i++) {
    while (t[i] - t[j] >= windowMs) j++;
    best = Math.max(best, i - j + 1);
  }
  return best;
}

async function main(): Promise<void> {
  const reg = await startRegistryServer();
  const registries = (): Record<RegistryName, BusinessRegistry> => ({
    gleif: new GleifRegistry(`${reg.url}/gleif`),
    sec_edgar: new SecEdgarRegistry(`${reg.url}/sec`, 'Bench bench@example.com'),
    uk_ch: new CompaniesHouseRegistry(`${reg.url}/ch`, TEST_CH_KEY),
    au_abr: new AbnLookupRegistry(`${reg.url}/abr`, TEST_ABR_GUID),
  });
  const shell = { legal_name: 'Shell plc', country: 'GB', lei: '21380068P1DRHMJ8KU70', uk_company_number: '04366849', abn: '88000014675', cik: '0000320193' };

  // 1. Latency with 50 ms registries.
  reg.delayMs = 50;
  const plain = new BusinessChecksService(registries(), null, null);
  for (let i = 0; i < 10; i++) await plain.run(shell); // warm-up
  const took: number[] = [];
  for (let i = 0; i < 300; i++) {
    const t0 = performance.now();
    await plain.run(shell);
    took.push(performance.now() - t0);
  }
  console.log(`latency (4 registries at 50 ms, 300 sessions): p50 ${pct(took, 50).toFixed(1)} ms, p99 ${pct(took, 99).toFixed(1)} ms, max ${Math.max(...took).toFixed(1)} ms (goal: p99 <= 300 ms)`);

  // 2. 200 concurrent sessions, two limiter instances; the registries in their own process, as real ones
  // are, so what they count is what arrived, not what this process meant to send.
  await reg.close();
  const child = spawn(process.execPath, [path.join(__dirname, '..', 'test', 'helpers', 'registry-server.js')], { stdio: ['ignore', 'pipe', 'inherit'] });
  const url = await new Promise<string>((resolve) => readline.createInterface({ input: child.stdout! }).once('line', resolve));
  const remote = (): Record<RegistryName, BusinessRegistry> => ({
    gleif: new GleifRegistry(`${url}/gleif`),
    sec_edgar: new SecEdgarRegistry(`${url}/sec`, 'Bench bench@example.com'),
    uk_ch: new CompaniesHouseRegistry(`${url}/ch`, TEST_CH_KEY),
    au_abr: new AbnLookupRegistry(`${url}/abr`, TEST_ABR_GUID),
  });
  const scaled = Object.fromEntries(Object.entries(REGISTRY_LIMITS).map(([k, v]) => [k, { n: v.n, windowMs: v.windowMs * SCALE }])) as typeof REGISTRY_LIMITS;
  const prefix = `bench-reg-${randomBytes(4).toString('hex')}`;
  const limiter = (): RegistryRateLimiter => (process.env.REDIS_URL ? new RedisRegistryRateLimiter(process.env.REDIS_URL, (n) => `${prefix}:${n}`, scaled, 20_000 * SCALE) : new MemoryRegistryRateLimiter(scaled, 20_000 * SCALE));
  const shared = process.env.REDIS_URL ? [limiter(), limiter()] : [limiter()];
  // Each instance has its own cache, as each server process does.
  const instances = shared.map((l) => new BusinessChecksService(remote(), l, new RegistryCache()));
  let retries = 0;
  const t0 = Date.now();
  const decided = await Promise.all(
    Array.from({ length: SESSIONS }, async (_, i) => {
      const submitted = { legal_name: `Bench ${i} Ltd`, lei: lei(`BENCH${String(i).padStart(13, '0')}`), uk_company_number: String(10_000_000 + i), abn: abn(i), cik: String(1_000_000 + i).padStart(10, '0') };
      for (;;) {
        try {
          return await instances[i % instances.length].run(submitted);
        } catch (err) {
          if (!(err instanceof RegistryBusyError)) throw err;
          retries++;
          await new Promise((r) => setTimeout(r, 5000 * SCALE)); // the job queue's retry, scaled
        }
      }
    }),
  );
  const elapsed = Date.now() - t0;
  const verdicts: Record<string, number> = {};
  for (const d of decided) for (const o of d.outcomes) verdicts[`${o.name}:${o.verdict}`] = (verdicts[`${o.name}:${o.verdict}`] ?? 0) + 1;
  console.log('  verdicts', JSON.stringify(verdicts));
  console.log(`${SESSIONS} concurrent sessions, ${shared.length} limiter instance(s)${process.env.REDIS_URL ? ' sharing Redis' : ' (in memory)'}, windows x${SCALE}: all ${decided.length} decided in ${(elapsed / 1000).toFixed(1)} s, ${retries} waits re-queued`);
  const hits = (await (await fetch(`${url}/_hits`)).json()) as Record<keyof typeof LIMITS, number[]>;
  child.kill();
  let over = false;
  for (const k of Object.keys(LIMITS) as (keyof typeof LIMITS)[]) {
    const { n, windowMs } = LIMITS[k];
    const w = windowMs * SCALE;
    const busiest = busiestWindow(hits[k], w);
    over ||= busiest > n;
    console.log(`  ${k}: ${hits[k].length} requests, busiest ${w} ms window held ${busiest} (limit ${n} per ${windowMs} ms, scaled to ${w} ms)`);
  }
  await Promise.all(shared.map((l) => l.close()));
  if (over) {
    console.error('a registry received more than its limit');
    process.exitCode = 1;
  }
}

void main();
