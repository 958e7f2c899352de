/**
 * Storing and reading one full-size sanctions snapshot (25,000 entries, ~30 MB of JSON) on the
 * embedded PostgreSQL, the way SanctionsListRepository does it (gzip JSON in bytea), against the
 * baseline of the same snapshot as jsonb, both measured in this run on a fresh DATA_DIR. On the
 * embedded database an open transaction blocks every connection, so the save time is how long a
 * `sanctions load` stalls the server. `npm run bench:sanctions-store`.
 */
import 'reflect-metadata';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pino from 'pino';
import { openDatabase } from '../src/db/database';
import { loadList, type ListSnapshot, type SanctionsEntry } from '../src/sanctions';
import { SanctionsListRepository } from '../src/sanctions/sanctions-list.repository';
import { SanctionsScreeningService } from '../src/sanctions/screening.service';

const FIXTURES = path.resolve(__dirname, '..', '..', 'test', 'fixtures', 'sanctions');
const SUBJECTS = 25_000;

async function corpus(): Promise<ListSnapshot> {
  const un = await loadList('un', 'auto', 'un.xml', fs.readFileSync(path.join(FIXTURES, 'un_consolidated_excerpt.xml')));
  const ofac = await loadList('ofac', 'auto', 'consolidated.xml', fs.readFileSync(path.join(FIXTURES, 'consolidated_excerpt.xml')));
  const base = [...un.entries, ...ofac.entries];
  const entries: SanctionsEntry[] = [];
  // Perturbed copies: every copy gets its own id and a distinct suffix on each name.
  for (let i = 0; entries.length < SUBJECTS; i++) {
    const tag = i ? ` ${String.fromCharCode(65 + (i % 26))}${String.fromCharCode(65 + (Math.floor(i / 26) % 26))}X` : '';
    for (const e of base) entries.push({ ...e, list: 'ofac', entry_id: `${e.entry_id}-${i}`, names: e.names.map((n) => ({ ...n, full: n.full + tag })) });
  }
  return { ...ofac, version: `ofac-bench-${Date.now()}`, entries: entries.slice(0, SUBJECTS) };
}

async function time<T>(fn: () => Promise<T>): Promise<[number, T]> {
  const t = process.hrtime.bigint();
  const v = await fn();
  return [Number(process.hrtime.bigint() - t) / 1e6, v];
}

async function main(): Promise<void> {
  const snapshot = await corpus();
  const json = JSON.stringify(snapshot);
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'sanctions-store-bench-'));
  const db = await openDatabase({ databaseUrl: undefined, dataDir }, 2);
  try {
    const q = (sql: string, params?: unknown[]) => db.dataSource.query(sql, params);
    await q('CREATE TEMP TABLE baseline_jsonb (snapshot jsonb NOT NULL)');
    const [jsonbSave] = await time(() => q('INSERT INTO baseline_jsonb VALUES ($1::jsonb)', [json]));
    const [jsonbRead] = await time(async () => (await q('SELECT snapshot FROM baseline_jsonb'))[0].snapshot as ListSnapshot);

    const repo = new SanctionsListRepository(db.dataSource);
    const [save, saved] = await time(() => repo.save(snapshot));
    const [read] = await time(() => repo.snapshot(saved.version.id));
    const screening = new SanctionsScreeningService(repo, pino({ level: 'silent' }), 3_600_000);
    const heapBefore = process.memoryUsage().heapUsed;
    const [rebuild] = await time(() => screening.refresh());
    const heapAfter = process.memoryUsage().heapUsed;
    const [poll] = await time(() => repo.currentVersions());

    const f = (ms: number) => `${ms.toFixed(0)} ms`;
    process.stdout.write(
      [
        `snapshot: ${snapshot.entries.length} entries, ${(json.length / 1e6).toFixed(1)} MB JSON (embedded PostgreSQL)`,
        `save      gzip bytea ${f(save)}  vs jsonb baseline ${f(jsonbSave)}  ratio ${(save / jsonbSave).toFixed(3)}`,
        `read      gzip bytea ${f(read)}  vs jsonb baseline ${f(jsonbRead)}  ratio ${(read / jsonbRead).toFixed(3)}`,
        `catch-up  (poll + read + index build) ${f(rebuild)}; heap +${((heapAfter - heapBefore) / 1e6).toFixed(0)} MB`,
        `poll      (current versions) ${poll.toFixed(1)} ms`,
      ].join('\n') + '\n',
    );
  } finally {
    await db.close();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

main().catch((err: unknown) => {
  process.stderr.write(`${err instanceof Error ? err.stack : String(err)}\n`);
  process.exit(1);
});
