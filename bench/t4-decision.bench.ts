import { passportFields, passportPhoto, captureAndSubmit } from '../test/helpers/live-session';
import { startRegistryServer } from '../test/helpers/registry-server';
import { createTenant, http, startServer, testEnv, ENGINES_OFF } from '../test/helpers/test-server';
import { abn, lei, pct } from './registry-identifiers';

/**
 * npm run bench:registries, part 1: what the four registry checks add to a live T4 decision, measured
 * through the built server as `npm start` starts it, with the four registries served locally in their
 * documented shapes (test/helpers/registry-server.ts) and answering each request after 50 ms.
 *
 * Each T4 session gives all four identifiers (distinct per session, so the server's 6-hour cache never
 * answers); the baseline, in the same run and alternating with them, is a T3 session with the same capture
 * and no business step. The time is from the hosted page's submit to the session leaving `processing`,
 * read by polling every 10 ms. The capture engines are off (as in test/e2e/live-t4-registries.test.ts), so
 * what is measured is the checks run and the registries, not face matching.
 *
 * Sessions go one after another, each at least 1.2 s after the last T4 one started: GLEIF's budget
 * (60 a minute) spaces calls 1.1 s apart, and this measures the checks, not the wait for the budget (part 2
 * of bench/registries.bench.ts measures the limits).
 *
 * Env: DATABASE_URL (else embedded), T4_BENCH_SESSIONS (60 of each), REGISTRY_DELAY_MS (50).
 */
const SESSIONS = Number(process.env.T4_BENCH_SESSIONS ?? 60);
const DELAY_MS = Number(process.env.REGISTRY_DELAY_MS ?? 50);
const GLEIF_SPACING_MS = 1200;
const HOLDER = { surname: 'ERIKSSON', givenNames: 'ANNA MARIA', dateOfBirth: '1986-05-02', nationality: 'SWE', documentNumber: 'SE7730142' };
const IDENTITY = { given_names: HOLDER.givenNames, surname: HOLDER.surname, date_of_birth: HOLDER.dateOfBirth };

async function main(): Promise<void> {
  const reg = await startRegistryServer();
  reg.delayMs = DELAY_MS;
  const server = await startServer(
    testEnv({ ...reg.env, RATE_LIMIT_ENABLED: 'false', ...ENGINES_OFF }),
  );
  try {
    const { live_api_key: key } = await createTenant(server, 'bench-t4');
    const document = await passportPhoto(passportFields(HOLDER));
    const decisionMs = async (tier: 'T3' | 'T4', i: number): Promise<number> => {
      const business = tier === 'T4' ? { legal_name: `Bench ${i} Ltd`, country: 'GB', lei: lei(`BENCHT4${String(i).padStart(11, '0')}`), uk_company_number: String(20_000_000 + i), abn: abn(5000 + i), cik: String(2_000_000 + i) } : undefined;
      // captureAndSubmit's last call is the submit: the clock starts when it has answered.
      const { id } = await captureAndSubmit(server, key, tier, { document, identity: IDENTITY, business });
      const t0 = performance.now();
      for (;;) {
        const r = await http(server, 'GET', `/v1/verify/sessions/${id}`, { key });
        if (!['created', 'in_progress', 'processing'].includes(r.body?.status)) {
          if (tier === 'T4' && r.body.result.checks.filter((c: { name: string; status: string }) => /registry|register|filings/.test(c.name) && c.status !== 'skipped').length !== 4) throw new Error(`session ${id}: not every registry check ran`);
          return performance.now() - t0;
        }
        await new Promise((r) => setTimeout(r, 10));
      }
    };
    for (let i = 0; i < 3; i++) await decisionMs('T3', -1 - i); // warm-up: first job, first pool connections
    const t3: number[] = [];
    const t4: number[] = [];
    let lastT4 = 0;
    for (let i = 0; i < SESSIONS; i++) {
      t3.push(await decisionMs('T3', i));
      const wait = lastT4 + GLEIF_SPACING_MS - Date.now();
      if (wait > 0) await new Promise((r) => setTimeout(r, wait));
      lastT4 = Date.now();
      t4.push(await decisionMs('T4', i));
      if ((i + 1) % 10 === 0) console.error(`[bench:t4 ${new Date().toISOString().slice(11, 19)}] ${i + 1}/${SESSIONS}`);
    }
    const line = (name: string, xs: number[]) => `${name.padEnd(40)} p50 ${pct(xs, 50).toFixed(0).padStart(5)} ms   p99 ${pct(xs, 99).toFixed(0).padStart(5)} ms   max ${Math.max(...xs).toFixed(0).padStart(5)} ms`;
    console.log(`\nT4 decision through the server (${process.env.DATABASE_URL ? 'PostgreSQL server' : 'embedded PostgreSQL'}), ${SESSIONS} sessions each, registries answering in ${DELAY_MS} ms:`);
    console.log(line('T3, same capture (baseline)', t3));
    console.log(line('T4, four registries', t4));
    console.log(`added by the registries: p50 +${(pct(t4, 50) - pct(t3, 50)).toFixed(0)} ms, p99 +${(pct(t4, 99) - pct(t3, 99)).toFixed(0)} ms (goal: at most 300 ms at p99); T4/T3 at p50 ${(pct(t4, 50) / pct(t3, 50)).toFixed(2)}x`);
    console.log(`registry requests counted: gleif ${reg.hits.gleif.length}, sec ${reg.hits.sec.length}, companies house ${reg.hits.ch.length}, abn ${reg.hits.abr.length}`);
  } finally {
    await server.stop();
    await reg.close();
  }
}

void main();
