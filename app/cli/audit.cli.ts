import { promises as fs } from 'node:fs';
import path from 'node:path';
import type { Config } from '../../src/config';
import type { Database } from '../../src/db/database';
import { DomainError } from '../../src/errors';
import { AuditLogService } from '../../src/audit/audit-log.service';
import { AuditReplicator } from '../../src/audit/audit-replicator';
import { verifySegments } from '../../src/audit/audit-segment';
import { loadAuditSigningKey } from '../../src/audit/audit-signing-key';
import { wormStoreFor } from '../worm-store.factory';

async function collect(p: string): Promise<string[]> {
  const stat = await fs.stat(p);
  if (stat.isFile()) return [p];
  const out: string[] = [];
  for (const entry of await fs.readdir(p, { withFileTypes: true })) {
    const full = path.join(p, entry.name);
    if (entry.isDirectory()) out.push(...(await collect(full)));
    else if (entry.name.endsWith('.ndjson')) out.push(full);
  }
  return out.sort();
}

/**
 * `audit verify <dir|segment>...`: offline, from the files alone. A directory is checked as a
 * whole archive (each log must start at its first entry); single files may start mid-log. Exit
 * status 1 when anything fails; the result names the file, line, entry and reason.
 */
export async function auditVerifyCommand(paths: string[]): Promise<unknown> {
  if (paths.length === 0) throw new DomainError('invalid_request', 'Give a directory of segments or segment files');
  const files: string[] = [];
  let anyDir = false;
  for (const p of paths) {
    try {
      if ((await fs.stat(p)).isDirectory()) anyDir = true;
      files.push(...(await collect(p)));
    } catch {
      throw new DomainError('not_found', `${p}: no such file or directory`);
    }
  }
  if (files.length === 0) throw new DomainError('not_found', 'No .ndjson segments found');
  const result = verifySegments(await Promise.all(files.map(async (file) => ({ file, body: await fs.readFile(file) }))), { allowPartial: !anyDir });
  if (!result.ok) process.exitCode = 1;
  return result.ok ? { ok: true, segments: files.length, logs: result.logs } : result;
}

/** `audit replicate`: the nightly job's work, now (catch-up after an outage, or before a migration). */
export async function auditReplicateCommand(config: Config, database: Database): Promise<unknown> {
  const db = database.dataSource;
  const store = await wormStoreFor(config);
  const r = await new AuditReplicator(db, store, await loadAuditSigningKey(db, config.audit.signingKey), new AuditLogService(db)).replicate();
  return { store: store.description, segments: r.segments, entries: r.entries, refused: r.refused };
}
