import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { gzipSync } from 'node:zlib';
import { ALL_SCOPES, TenantKeyActor } from '../../auth/actor';
import { loadList } from '../../sanctions/sanctions-list.loader';
import type { SanctionsHit } from '../../../entities/session-result.document';
import { SessionService } from '../../sessions/session.service';
import { NO_END_USERS, quietEffects } from '../../../test/helpers/session-fakes';
import { testModeResult } from '../../sessions/test-mode-outcome';
import { TenantService } from '../../tenants/tenant.service';
import { Database, openDatabase } from '../database';
import { SanctionsHitReferences1764200000000 } from './1764200000000-sanctions-hit-references';

const FIXTURES = path.join(__dirname, '..', '..', '..', 'test', 'fixtures', 'sanctions');

/**
 * Results decided before hits carried `reference` get it from the list version each hit names.
 * Runs against a real PostgreSQL (embedded, or DATABASE_URL); the list versions it stores have
 * labels unique to this run and are never made current, so other tests sharing the database see
 * no change in the lists in force.
 */
describe('migration 1764200000000: sanctions hits get their list reference', () => {
  let database: Database;
  let actor: TenantKeyActor;
  let sessions: SessionService;

  beforeAll(async () => {
    database = await openDatabase({ databaseUrl: process.env.DATABASE_URL, dataDir: fs.mkdtempSync(path.join(os.tmpdir(), 'ivs-unit-')) }, 2);
    sessions = new SessionService(database.dataSource, database.sql, { sendJobs: async () => undefined, insertStatement: async () => null }, NO_END_USERS, quietEffects());
    const tenant = await new TenantService(database.dataSource).create('hit-references');
    actor = { kind: 'tenant_key', tenantId: tenant.tenantId, keyId: tenant.liveKey.id, livemode: true, scopes: ALL_SCOPES };
  });
  afterAll(async () => {
    await database?.close();
  });

  /** Stores a list version as a load before `reference` existed wrote it: entries without the field. */
  async function storeOldVersion(list: 'un' | 'eu', file: string): Promise<string> {
    const snapshot = await loadList(list, 'auto', file, fs.readFileSync(path.join(FIXTURES, file)));
    const version = `${list}-migration-test-${randomBytes(6).toString('hex')}`;
    const entries = snapshot.entries.map(({ reference: _dropped, ...rest }) => rest);
    await database.dataSource.query(
      `INSERT INTO sanctions_list_versions (list, version, format, source_file, published_at, entry_count, warnings, snapshot_gz) VALUES ($1, $2, $3, $4, NULL, $5, '[]'::jsonb, $6)`,
      [list, version, snapshot.format, file, entries.length, gzipSync(JSON.stringify({ ...snapshot, version, entries }))],
    );
    return version;
  }

  const oldHit = (list: string, entry_id: string, list_version: string): Omit<SanctionsHit, 'reference'> => ({
    list,
    entry_id,
    programme: 'P',
    subject_type: 'person',
    matched_name: 'NAME',
    score: 0.9,
    reasons: [{ feature: 'name', score: 0.9, detail: 'aligned' }],
    list_version,
  });

  it('adds the UN permanent reference, the EU reference and the OFAC entry number to stored results', async () => {
    const [unVersion, euVersion] = await Promise.all([storeOldVersion('un', 'un_consolidated_excerpt.xml'), storeOldVersion('eu', 'fsf_1_1_excerpt.xml')]);
    const { session } = await sessions.create(actor, { flowId: 'default', tier: 'T3' });
    const result = { ...testModeResult('T3', 'review').result, sanctions_hits: [oldHit('un', '6907993', unVersion), oldHit('eu', '6106', euVersion), oldHit('ofac', '10278', 'ofac-gone-version')] };
    await database.dataSource.query(`UPDATE sessions SET result = $2::jsonb WHERE id = $1`, [session.id, JSON.stringify(result)]);

    const runner = database.dataSource.createQueryRunner();
    try {
      await new SanctionsHitReferences1764200000000().up(runner);
    } finally {
      await runner.release();
    }

    const [row]: { result: { sanctions_hits: SanctionsHit[]; decision: string } }[] = await database.dataSource.query(`SELECT result FROM sessions WHERE id = $1`, [session.id]);
    expect(row.result.sanctions_hits.map((h) => [h.list, h.entry_id, h.reference])).toEqual([
      ['un', '6907993', 'CDi.001'],
      ['eu', '6106', 'EU.3886.3'],
      ['ofac', '10278', '10278'],
    ]);
    expect(row.result.decision).toBe('review'); // the rest of the document is untouched
    expect(row.result.sanctions_hits[0]).toMatchObject(oldHit('un', '6907993', unVersion));
  });
});
