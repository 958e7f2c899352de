import { execFile } from 'node:child_process';
import { generateKeyPairSync } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { entryHash, GENESIS_HASH } from '../../entities/audit-canonical';
import { buildSegment, fromFields, SegmentEntry, segmentKey } from '../../src/audit/audit-segment';
import { ROOT } from '../helpers/test-server';

const CLI = path.join(ROOT, 'dist', 'app', 'cli.js');

/** `audit verify` as an operator runs it: the compiled CLI, no database, no configuration. */
function verify(args: string[]): Promise<{ code: number; json: any }> {
  return new Promise((resolve) => {
    // No DATABASE_URL and a DATA_DIR that does not exist: the command must not need either.
    execFile(process.execPath, [CLI, 'audit', 'verify', ...args, '--json'], { env: { PATH: process.env.PATH, DATA_DIR: '/nonexistent/ivs' }, timeout: 60_000 }, (err, stdout) => {
      resolve({ code: err ? ((err as { code?: number }).code ?? 1) : 0, json: JSON.parse(stdout) });
    });
  });
}

describe('npm run cli -- audit verify', () => {
  const key = generateKeyPairSync('ed25519').privateKey;
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ivs-verify-'));
  let ids: string[] = [];

  beforeAll(() => {
    let prev = GENESIS_HASH;
    const entries: SegmentEntry[] = [];
    for (let seq = 1; seq <= 4; seq++) {
      const f = { logId: 'service', logSeq: seq, prevHash: prev, id: `aud_${String(seq).padStart(24, '0')}`, tenantId: null, livemode: null, action: 'retention.run', subjectId: `rrun_${seq}`, detail: { purged: { selfie_image: seq } }, createdAt: `2026-03-0${seq}T01:00:00.000Z` };
      prev = entryHash(f);
      entries.push(fromFields(f, prev));
    }
    ids = entries.map((e) => e.id);
    for (const part of [entries.slice(0, 2), entries.slice(2)]) {
      const { body } = buildSegment(part, part[0].created_at.slice(0, 10), key);
      const file = path.join(dir, segmentKey('service', part[0].created_at.slice(0, 10), part[0].seq));
      fs.mkdirSync(path.dirname(file), { recursive: true });
      fs.writeFileSync(file, body);
    }
  });

  it('accepts an intact archive offline and reports each log', async () => {
    const r = await verify([dir]);
    expect(r.code).toBe(0);
    expect(r.json).toMatchObject({ ok: true, segments: 2, logs: [{ log_id: 'service', segments: 2, entries: 4, last_seq: 4 }] });
  });

  it('exits 1 and names the entry whose byte was changed', async () => {
    const copy = fs.mkdtempSync(path.join(os.tmpdir(), 'ivs-verify-tampered-'));
    fs.cpSync(dir, copy, { recursive: true });
    const file = path.join(copy, 'service', '2026-03-03-000000000003.ndjson');
    fs.writeFileSync(file, fs.readFileSync(file, 'utf8').replace('"selfie_image":4', '"selfie_image":5'));
    const r = await verify([copy]);
    expect(r.code).toBe(1);
    expect(r.json).toMatchObject({ ok: false, file, line: 2, entry_id: ids[3], seq: 4 });
  });
});
