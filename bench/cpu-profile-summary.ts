/**
 * `node dist/bench/cpu-profile-summary.js <dir or .cpuprofile>...`: where the CPU of V8 CPU profiles went (as
 * `node --cpu-prof` writes them; the checks bench's BENCH_CPU_PROFILE), one table per profile (one per thread):
 * self time by package or source folder, and the heaviest functions. Sampled time, not the kernel's count, so
 * it misses native threads V8 does not see (tesseract's worker is a thread of its own and has its own profile).
 * PROFILE_FROM_US / PROFILE_TO_US keep only the samples in that window of the monotonic clock, in µs (the profile's
 * own clock: bench:hosted prints each phase's `mono` time), to read one phase of a longer run.
 */
import fs from 'node:fs';
import path from 'node:path';

type ProfileNode = { id: number; callFrame: { functionName: string; url: string; lineNumber: number }; children?: number[] };
type Profile = { nodes: ProfileNode[]; startTime: number; endTime: number; samples: number[]; timeDeltas: number[] };

/** A package (`@vladmandic/human`), a source folder of ours (`src/checks`), or `(program)`/`(garbage collector)`/`node:`. */
function placeOf(url: string, fn: string): string {
  if (!url) return fn.startsWith('(') ? fn : '(native)';
  const nm = url.lastIndexOf('node_modules/');
  if (nm >= 0) {
    const rest = url.slice(nm + 'node_modules/'.length).split('/');
    return rest[0].startsWith('@') ? `${rest[0]}/${rest[1]}` : rest[0];
  }
  if (url.startsWith('node:')) return 'node:';
  const d = url.indexOf('/dist/');
  if (d >= 0) return url.slice(d + 6).split('/').slice(0, 2).join('/');
  return url.startsWith('wasm://') ? 'wasm' : url;
}

function summarise(file: string, top: number): string {
  const p = JSON.parse(fs.readFileSync(file, 'utf8')) as Profile;
  const byId = new Map(p.nodes.map((n) => [n.id, n]));
  const self = new Map<number, number>();
  const from = Number(process.env.PROFILE_FROM_US ?? -Infinity);
  const to = Number(process.env.PROFILE_TO_US ?? Infinity);
  let at = p.startTime;
  p.samples.forEach((id, i) => {
    at += p.timeDeltas[i] ?? 0;
    if (at >= from && at <= to) self.set(id, (self.get(id) ?? 0) + (p.timeDeltas[i] ?? 0));
  });
  const total = [...self.values()].reduce((s, v) => s + v, 0);
  const places = new Map<string, number>();
  const fns = new Map<string, number>();
  for (const [id, us] of self) {
    const { functionName, url, lineNumber } = byId.get(id)!.callFrame;
    const place = placeOf(url, functionName);
    places.set(place, (places.get(place) ?? 0) + us);
    const fn = `${functionName || '(anonymous)'} ${place}${url ? `:${lineNumber + 1}` : ''}`;
    fns.set(fn, (fns.get(fn) ?? 0) + us);
  }
  const idle = (places.get('(idle)') ?? 0) / 1e6;
  const rows = (m: Map<string, number>) =>
    [...m]
      .filter(([k]) => k !== '(idle)')
      .sort((a, b) => b[1] - a[1])
      .slice(0, top)
      .map(([k, us]) => `  ${(us / 1e6).toFixed(2).padStart(7)} s  ${k}`)
      .join('\n');
  return `${path.basename(file)}: ${((total / 1e6) - idle).toFixed(2)} s busy of ${(total / 1e6).toFixed(1)} s sampled\n by place:\n${rows(places)}\n by function:\n${rows(fns)}`;
}

const files = process.argv.slice(2).flatMap((a) => (fs.statSync(a).isDirectory() ? fs.readdirSync(a).filter((f) => f.endsWith('.cpuprofile')).map((f) => path.join(a, f)) : [a]));
const top = Number(process.env.TOP ?? 15);
for (const f of files) console.log(`${summarise(f, top)}\n`);
