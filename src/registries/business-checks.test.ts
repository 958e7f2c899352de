import { decide } from '../verification/decision-policy';
import { startRegistryServer, TEST_ABR_GUID, TEST_CH_KEY, type RegistryServer } from '../../test/helpers/registry-server';
import { AbnLookupRegistry } from './abn-lookup.registry';
import { SwitchedOffRegistry, type BusinessRegistry, type RegistryName } from './business-registry';
import { BusinessChecksService } from './business-checks.service';
import { CompaniesHouseRegistry } from './companies-house.registry';
import { GleifRegistry } from './gleif.registry';
import { nameSimilarity, nameWords } from './name-match';
import { RegistryCache } from './registry-cache';
import { MemoryRegistryRateLimiter, RedisRegistryRateLimiter, RegistryBusyError } from './registry-rate-limiter';
import { randomBytes } from 'node:crypto';
import { SecEdgarRegistry } from './sec-edgar.registry';
import { TEST_IDENTIFIERS, testModeRegistries } from './test-mode-registries';

let reg: RegistryServer;
beforeAll(async () => {
  reg = await startRegistryServer();
});
afterAll(() => reg.close());

const registries = (timeoutMs = 1000): Record<RegistryName, BusinessRegistry> => ({
  gleif: new GleifRegistry(`${reg.url}/gleif`, timeoutMs),
  sec_edgar: new SecEdgarRegistry(`${reg.url}/sec`, 'Tests tests@example.com', timeoutMs),
  uk_ch: new CompaniesHouseRegistry(`${reg.url}/ch`, TEST_CH_KEY, timeoutMs),
  au_abr: new AbnLookupRegistry(`${reg.url}/abr`, TEST_ABR_GUID, timeoutMs),
});
const service = (r = registries()) => new BusinessChecksService(r, null, null);
const T3_PASSED = ['document_ocr', 'face_match', 'liveness', 'anti_spoof', 'sanctions_screening'].map((name) => ({ name, verdict: 'pass' as const, score: 0.99 }));

describe('legal names', () => {
  it('match after casefolding, & as and, punctuation and legal suffixes, but not with a word more or less', () => {
    expect(nameWords('The Shell Transport & Trading Co. P.L.C.')).toEqual(['shell', 'transport', 'and', 'trading']);
    expect(nameSimilarity('Shell plc', 'SHELL PLC')).toBe(1);
    expect(nameSimilarity('Woolworths Group Pty Ltd', 'WOOLWORTHS GROUP LIMITED')).toBe(1);
    expect(nameSimilarity('Apple, Inc.', 'Apple Inc.')).toBe(1);
    expect(nameSimilarity('Shell Trading plc', 'SHELL PLC')).toBeLessThan(0.9);
    expect(nameSimilarity('Woolworth Group', 'WOOLWORTHS GROUP LIMITED')).toBeGreaterThanOrEqual(0.9);
  });
});

describe('the four registry checks', () => {
  it('pass a UK company whose LEI and company number both match, with the record in details and the reason naming it', async () => {
    const { outcomes, evidence } = await service().run({ legal_name: 'Shell plc', country: 'GB', lei: '21380068P1DRHMJ8KU70', uk_company_number: '04366849' });
    expect(outcomes.map((o) => [o.name, o.verdict])).toEqual([
      ['lei_registry', 'pass'],
      ['sec_filings', 'skipped'],
      ['uk_company_register', 'pass'],
      ['au_business_register', 'skipped'],
    ]);
    const ch = outcomes[2];
    expect(ch.reason).toContain('Companies House record: SHELL PLC, status active, GB (https://find-and-update.company-information.service.gov.uk/company/04366849)');
    expect(ch.details).toMatchObject({ record: { legal_name: 'SHELL PLC', status: 'active' }, name_match: 'legal_name' });
    expect(outcomes[0].details).toMatchObject({ cross_check: { with: 'uk_company_number', matches: true } });
    expect(outcomes[1].reason).toBe('No CIK was given, so SEC EDGAR was not asked');
    expect(evidence.map((e) => e.registry)).toEqual(['gleif', 'uk_ch']);
    expect(JSON.parse(evidence[0].raw).data.id).toBe('21380068P1DRHMJ8KU70');
    const d = decide('T4', [...T3_PASSED, ...outcomes], { country: 'GB' });
    expect(d).toMatchObject({ status: 'success', achievedTier: 'T4', badges: ['photo', 'liveness', 'sanctions_clear', 'business'] });
    expect(d.checks.find((c) => c.name === 'sec_filings')).toMatchObject({ status: 'skipped', verdict: 'skipped' });
  });

  it('fails an inactive company, a name mismatch, a jurisdiction mismatch and an unknown number; never a pass', async () => {
    const inactive = await service().run({ legal_name: 'Renable Pharma Ltd', uk_company_number: '00006402' });
    expect(inactive.outcomes[2]).toMatchObject({ verdict: 'fail', reason: expect.stringContaining('the company is not active') });
    const name = await service().run({ legal_name: 'BP plc', uk_company_number: '04366849' });
    expect(name.outcomes[2]).toMatchObject({ verdict: 'fail', reason: expect.stringContaining('"BP plc", does not match') });
    const place = await service().run({ legal_name: 'Woolworths Group Limited', country: 'GB', abn: '88000014675' });
    expect(place.outcomes[3]).toMatchObject({ verdict: 'fail', reason: expect.stringContaining('the jurisdiction AU-NSW is not in GB') });
    const missing = await service().run({ legal_name: 'Nobody Ltd', uk_company_number: '01234567' });
    expect(missing.outcomes[2]).toMatchObject({ verdict: 'fail', reason: expect.stringContaining('Companies House has no company 01234567') });
    for (const run of [inactive, name, place, missing]) expect(decide('T4', [...T3_PASSED, ...run.outcomes]).status).toBe('failed');
  });

  it('sends an alias match, the SEC (no status) and a registry error to review, never to a pass', async () => {
    const alias = await service().run({ legal_name: 'Royal Dutch Shell plc', uk_company_number: '04366849' });
    expect(alias.outcomes[2]).toMatchObject({ verdict: 'review', reason: expect.stringContaining('alias_match') });
    const sec = await service().run({ legal_name: 'Apple Inc.', country: 'US', cik: '0000320193' });
    expect(sec.outcomes[1]).toMatchObject({ verdict: 'review', reason: expect.stringContaining('EDGAR has no company status') });
    reg.override('ch', '00000500', { status: 500, body: '{}' });
    const down = await service().run({ legal_name: 'Shell plc', lei: '21380068P1DRHMJ8KU70', uk_company_number: '00000500' });
    expect(down.outcomes[2]).toMatchObject({ verdict: 'error', reason: 'Companies House answered HTTP 500' });
    for (const run of [alias, sec, down]) {
      const d = decide('T4', [...T3_PASSED, ...run.outcomes]);
      expect(d.status).toBe('manual_review');
      expect(d.badges).not.toContain('business');
    }
  });

  it("needs the national register of the business's country: a GB company checked only at GLEIF gets no business badge", async () => {
    const run = await service().run({ legal_name: 'Shell plc', country: 'GB', lei: '21380068P1DRHMJ8KU70' });
    expect(run.outcomes[0].verdict).toBe('pass');
    expect(decide('T4', [...T3_PASSED, ...run.outcomes], { country: 'GB' })).toMatchObject({ status: 'manual_review', badges: ['photo', 'liveness', 'sanctions_clear'] });
    expect(decide('T4', [...T3_PASSED, ...run.outcomes], {})).toMatchObject({ status: 'success', badges: expect.arrayContaining(['business']) });
  });

  it('flags an LEI whose registeredAs number is not the UK company number given with it', async () => {
    const run = await service().run({ legal_name: 'Shell plc', lei: '21380068P1DRHMJ8KU70', uk_company_number: '00006402' });
    expect(run.outcomes[0]).toMatchObject({ verdict: 'review', reason: expect.stringContaining('the LEI names UK company 04366849, not 00006402') });
  });

  it('runs the four registries at once: each is asked before any has answered', async () => {
    // The registries answer nothing until all four requests have arrived: asked one at a time, the first
    // would wait for the 30 s ceiling and be answered before the second was sent.
    const reached = reg.holdAnswersUntil(4);
    const answeredBefore = reg.answered.length;
    // Timeouts longer than the hold, so that a loaded machine's slow start of a request is not a failure.
    const run = await service(registries(40_000)).run({ legal_name: 'Shell plc', lei: '21380068P1DRHMJ8KU70', uk_company_number: '04366849', abn: '88000014675', cik: '0000320193' });
    expect(await reached).toBe(true);
    expect(run.outcomes.map((o) => o.verdict)).toEqual(['pass', expect.any(String), 'pass', expect.any(String)]);
    const last = [reg.hits.gleif, reg.hits.sec, reg.hits.ch, reg.hits.abr].map((h) => h.at(-1)!);
    expect(Math.max(...last)).toBeLessThanOrEqual(Math.min(...reg.answered.slice(answeredBefore)));
  });

  it('is an error with the reason when a registry is switched off for want of its credential', async () => {
    const r = { ...registries(), uk_ch: new SwitchedOffRegistry('uk_ch', 'Companies House is switched off: COMPANIES_HOUSE_API_KEY is not set') };
    const run = await service(r).run({ legal_name: 'Shell plc', uk_company_number: '04366849' });
    expect(run.outcomes[2]).toMatchObject({ verdict: 'error', reason: 'Companies House is switched off: COMPANIES_HOUSE_API_KEY is not set' });
  });

  it('reuses a found record for 6 hours and a not-found for 5 minutes (the retries), and never keeps an error', async () => {
    let now = 0;
    const s = new BusinessChecksService(registries(), null, new RegistryCache(undefined, undefined, () => now));
    const before = reg.hits.ch.length;
    await s.run({ legal_name: 'Shell plc', uk_company_number: '04366849' });
    const again = await s.run({ legal_name: 'Shell plc', uk_company_number: '04366849' });
    expect(again.evidence[0].cached).toBe(true);
    await s.run({ legal_name: 'X Ltd', uk_company_number: '01234567' });
    await s.run({ legal_name: 'X Ltd', uk_company_number: '01234567' });
    expect(reg.hits.ch.length - before).toBe(2);
    now += 5 * 60 * 1000 + 1; // the not-found has gone, the record has not
    await s.run({ legal_name: 'X Ltd', uk_company_number: '01234567' });
    await s.run({ legal_name: 'Shell plc', uk_company_number: '04366849' });
    expect(reg.hits.ch.length - before).toBe(3);
    now += 6 * 3600 * 1000;
    await s.run({ legal_name: 'Shell plc', uk_company_number: '04366849' });
    expect(reg.hits.ch.length - before).toBe(4);
    reg.override('ch', '00000501', { status: 500, body: '{}' });
    await s.run({ legal_name: 'X Ltd', uk_company_number: '00000501' });
    await s.run({ legal_name: 'X Ltd', uk_company_number: '00000501' });
    expect(reg.hits.ch.length - before).toBe(6);
  });

  it('keeps the cache within its bytes, dropping the oldest answers first', () => {
    const cache = new RegistryCache(undefined, 100);
    const notFound = (raw: string) => ({ kind: 'not_found' as const, reason: 'none', sourceUrl: 'https://x', raw, contentType: 'application/json' });
    cache.put('gleif', 'A', notFound('a'.repeat(40)));
    cache.put('gleif', 'B', notFound('b'.repeat(40)));
    cache.put('gleif', 'C', notFound('c'.repeat(40)));
    cache.put('gleif', 'D', notFound('d'.repeat(101)));
    expect(['A', 'B', 'C', 'D'].map((id) => cache.get('gleif', id) !== null)).toEqual([false, true, true, false]);
  });

  it('throws RegistryBusyError (the job waits in the queue) on a 429, never a fail', async () => {
    reg.override('gleif', '529900T8BM49AURSDO55', { status: 429, body: '' });
    await expect(service().run({ legal_name: 'X', lei: '529900T8BM49AURSDO55' })).rejects.toBeInstanceOf(RegistryBusyError);
  });
});

describe('the rate limiter', () => {
  it("lets no window of the limit's length, wherever it starts, hold more than the limit, and refuses a wait past its bound", async () => {
    const limits = { gleif: { n: 3, windowMs: 100 }, sec_edgar: { n: 1, windowMs: 10 }, uk_ch: { n: 1, windowMs: 10 }, au_abr: { n: 1, windowMs: 10 } };
    // On fake timers: the times are the limiter's own slots, not when a loaded machine got round to them.
    jest.useFakeTimers();
    try {
      const limiter = new MemoryRegistryRateLimiter(limits, 1000);
      const times: number[] = [];
      const all = Promise.all(Array.from({ length: 10 }, async () => {
        await limiter.acquire('gleif');
        times.push(Date.now());
      }));
      await jest.advanceTimersByTimeAsync(2_000);
      await all;
      times.sort((a, b) => a - b);
      for (let i = 3; i < times.length; i++) expect(times[i] - times[i - 3]).toBeGreaterThanOrEqual(100);
    } finally {
      jest.useRealTimers();
    }
    const tight = new MemoryRegistryRateLimiter(limits, 150);
    const settled = await Promise.allSettled(Array.from({ length: 10 }, () => tight.acquire('gleif')));
    expect(settled.filter((r) => r.status === 'fulfilled').length).toBeLessThanOrEqual(6);
    expect(settled.filter((r) => r.status === 'rejected').every((r) => (r as PromiseRejectedResult).reason instanceof RegistryBusyError)).toBe(true);
  });
});

describe('the rate limiter when Redis does not answer', () => {
  it('keeps checks going with this instance\'s own spacing, and says so once', async () => {
    const limits = { gleif: { n: 2, windowMs: 100 }, sec_edgar: { n: 1, windowMs: 10 }, uk_ch: { n: 1, windowMs: 10 }, au_abr: { n: 1, windowMs: 10 } };
    const outages: string[] = [];
    // Nothing listens on port 1: every Redis call fails at once.
    const limiter = new RedisRegistryRateLimiter('redis://127.0.0.1:1', (n) => `down:${n}`, limits, 2000, (err) => outages.push(err.message));
    try {
      const times: number[] = [];
      for (let i = 0; i < 4; i++) {
        await limiter.acquire('gleif');
        times.push(Date.now());
      }
      for (let i = 2; i < times.length; i++) expect(times[i] - times[i - 2]).toBeGreaterThanOrEqual(100);
      expect(outages).toHaveLength(1);
    } finally {
      await limiter.close();
    }
  });
});

// With REDIS_URL (the CI pass), two instances' limiters share one budget.
(process.env.REDIS_URL ? describe : describe.skip)('the rate limiter over Redis', () => {
  it('shares one budget between instances: a call one took is not the other\'s to take', async () => {
    const limits = { gleif: { n: 2, windowMs: 200 }, sec_edgar: { n: 1, windowMs: 10 }, uk_ch: { n: 1, windowMs: 10 }, au_abr: { n: 1, windowMs: 10 } };
    const prefix = `test-registry-${randomBytes(4).toString('hex')}`;
    const [a, b] = [0, 1].map(() => new RedisRegistryRateLimiter(process.env.REDIS_URL!, (n) => `${prefix}:${n}`, limits, 0));
    try {
      await a.acquire('gleif');
      await expect(b.acquire('gleif')).rejects.toBeInstanceOf(RegistryBusyError);
      const [c, d] = [0, 1].map(() => new RedisRegistryRateLimiter(process.env.REDIS_URL!, (n) => `${prefix}:${n}`, limits, 2000));
      const times: number[] = [];
      await Promise.all([c, d, c, d].map(async (l) => {
        await l.acquire('gleif');
        times.push(Date.now());
      }));
      times.sort((x, y) => x - y);
      for (let i = 2; i < times.length; i++) expect(times[i] - times[i - 2]).toBeGreaterThanOrEqual(200);
      await Promise.all([c.close(), d.close()]);
    } finally {
      await Promise.all([a.close(), b.close()]);
    }
  });
});

describe('test mode', () => {
  it('answers from the identifier alone: pass, inactive, not found and registry error', async () => {
    const sub = { legal_name: 'Acme Widgets Ltd', country: 'GB' };
    const run = (uk: string) => new BusinessChecksService(testModeRegistries({ ...sub, uk_company_number: uk }), null, null).run({ ...sub, uk_company_number: uk });
    expect((await run('12345678')).outcomes[2].verdict).toBe('pass');
    expect((await run(TEST_IDENTIFIERS.uk_ch.inactive)).outcomes[2]).toMatchObject({ verdict: 'fail', reason: expect.stringContaining('not active') });
    expect((await run(TEST_IDENTIFIERS.uk_ch.not_found)).outcomes[2]).toMatchObject({ verdict: 'fail', reason: expect.stringContaining('no record') });
    expect((await run(TEST_IDENTIFIERS.uk_ch.error)).outcomes[2]).toMatchObject({ verdict: 'error' });
  });
});
