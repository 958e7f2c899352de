import fs from 'node:fs';
import path from 'node:path';
import { JOB_DEFINITIONS } from '../app/job-registry';

/**
 * Every queue the service works is declared by its module and collected in app/job-registry.ts
 * (issue 45, item 3); docs/architecture.md's "Background jobs" table lists exactly those queues, so a
 * queue added, renamed or dropped in code without the document fails here.
 */
const doc = fs.readFileSync(path.resolve(__dirname, '../docs/architecture.md'), 'utf8');

function documentedQueues(): string[] {
  const section = doc.slice(doc.indexOf('## Background jobs'));
  const table = section.slice(section.indexOf('| job | what it does |'));
  const rows = table.slice(0, table.indexOf('\n\n')).split('\n').slice(2);
  return rows.map((row) => /^\| `([^`]+)` \|/.exec(row)?.[1] ?? `unreadable row: ${row}`);
}

describe('the job registry and docs/architecture.md', () => {
  const registered = JOB_DEFINITIONS.map((d) => d.queue);

  it('registers each queue once', () => {
    expect(new Set(registered).size).toBe(registered.length);
  });

  it('the architecture document lists every registered queue, and no other', () => {
    expect([...documentedQueues()].sort()).toEqual([...registered].sort());
  });

  it('the document says how many queues there are', () => {
    expect(/All (\d+) queues/.exec(doc)?.[1]).toBe(String(registered.length));
  });
});
