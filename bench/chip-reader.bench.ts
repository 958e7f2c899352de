/**
 * The chip-reader SDK's reading goals (docs/benchmarks.md, "ePassport chip reader"): APDUs to read
 * EF.SOD, DG1 and DG2 (goal <= 12 extended, <= 90 short) and the time on a simulated NFC link of
 * 424 kbit/s with 5 ms per exchange (goal < 2 s), for the real 15 KB DG2 of the test passport and a
 * 20 KB one, with BAC (3DES SM) and PACE (AES SM). Baseline, measured in the same run: the same bytes at the same link speed with one
 * exchange per file (the unreachable floor: no access control, no secure messaging, no chunking).
 * The chip is simulated in-process (sdk/chip-reader/test/simulated-chip.ts); no server is involved:
 * reading happens on the phone, before the upload.
 *
 *   npm run bench:chip-reader      (RUNS=10 for more samples)
 */
import { readPassport } from '../sdk/chip-reader/src';
import { cardAccess, dg2OfSize, SYNTHETIC, syntheticFiles } from '../sdk/chip-reader/test/fixtures';
import { SimulatedChip, simulatedLink } from '../sdk/chip-reader/test/simulated-chip';

const RUNS = Number(process.env.RUNS ?? 5);
const LINK = { bitsPerSecond: 424_000, perExchangeMs: 5 };
const GOAL_FILES = ['EF.SOD', 'DG1', 'DG2'] as const;

async function measure(dg2: Uint8Array, extended: boolean, pace: boolean) {
  const walls: number[] = [];
  let apdus = 0;
  let total = 0;
  let modelled = 0;
  for (let i = 0; i < RUNS; i++) {
    const files = syntheticFiles(dg2);
    if (pace) files.set(0x1c, cardAccess());
    const chip = new SimulatedChip({ files, mrz: SYNTHETIC.mrz, extendedLength: extended });
    const link = simulatedLink(chip, LINK);
    const started = performance.now();
    const read = await readPassport({ transceive: (a) => link.transceive(a), extendedLengthSupported: extended }, { mrz: SYNTHETIC.mrz });
    walls.push(performance.now() - started);
    apdus = GOAL_FILES.reduce((n, f) => n + (read.stats.apdusForFiles[f] ?? 0), 0);
    total = read.stats.apdus;
    modelled = link.elapsedMs();
  }
  walls.sort((a, b) => a - b);
  const floorMs = GOAL_FILES.length * LINK.perExchangeMs + ((SYNTHETIC.sod.length + SYNTHETIC.dg1.length + dg2.length) * 8 * 1000) / LINK.bitsPerSecond;
  return { apdus, total, modelled, median: walls[Math.floor(walls.length / 2)], floorMs };
}

async function main(): Promise<void> {
  console.log(`| DG2 | access | reads | APDUs SOD+DG1+DG2 (goal) | APDUs in all (SELECT, BAC, EF.COM too) | link time, modelled | wall time, median of ${RUNS} | baseline (bytes at link speed) | ratio wall / baseline |`);
  console.log('|---|---|---|---|---|---|---|---|---|');
  for (const [label, dg2] of [['15,083 B (test passport)', SYNTHETIC.dg2], ['20,480 B', dg2OfSize(20 * 1024)]] as const) {
    for (const [pace, extended] of [[false, true], [false, false], [true, true], [true, false]]) {
      const m = await measure(dg2, extended, pace);
      const goal = extended ? 12 : 90;
      console.log(`| ${label} | ${pace ? 'PACE, AES' : 'BAC, 3DES'} | ${extended ? 'extended' : 'short'} | ${m.apdus} (<= ${goal}: ${m.apdus <= goal ? 'met' : 'NOT met'}) | ${m.total} | ${m.modelled.toFixed(0)} ms | ${m.median.toFixed(0)} ms | ${m.floorMs.toFixed(0)} ms | ${(m.median / m.floorMs).toFixed(2)} |`);
    }
  }
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
