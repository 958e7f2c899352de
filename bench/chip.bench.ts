/**
 * Passive Authentication latency per algorithm family (docs/benchmarks.md; goal p99 < 50 ms).
 * Each family runs the full verifier (parse, messageDigest, DS signature, DS -> CSCA, DG hashes)
 * and, as an in-run baseline, a bare node:crypto verify of the same SOD signature, so the
 * ratio shows what parsing and the chain add on this machine.
 *
 *   npm run bench:chip            (ITERATIONS=2000 npm run bench:chip for more samples)
 */
import { verify as cryptoVerify, X509Certificate, constants } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { InMemoryCscaTrustStore, verifyPassiveAuthentication } from '../src/chip';
import { parseSod } from '../src/chip/sod.parser';

interface Family {
  readonly name: string;
  readonly folder: string;
  readonly withDataGroups: boolean;
  /** node:crypto arguments for the baseline verify. */
  readonly hash: string;
  readonly options: Record<string, unknown>;
}

const FAMILIES: Family[] = [
  { name: 'RSA-2048 PKCS#1 v1.5 (CSCA RSA-3072)', folder: 'synthetic/rsa_pkcs1v15_sha256', withDataGroups: true, hash: 'sha256', options: { padding: constants.RSA_PKCS1_PADDING } },
  { name: 'RSA-2048 PSS (CSCA RSA-3072)', folder: 'synthetic/rsassa_pss_sha256', withDataGroups: true, hash: 'sha256', options: { padding: constants.RSA_PKCS1_PSS_PADDING, saltLength: 32 } },
  { name: 'ECDSA P-256 (CSCA P-384)', folder: 'synthetic/ecdsa_p256_named_sha256', withDataGroups: true, hash: 'sha256', options: { dsaEncoding: 'der' } },
  { name: 'ECDSA brainpoolP256r1 explicit (CSCA bP384r1 explicit)', folder: 'synthetic/ecdsa_brainpoolP256r1_explicit_sha256', withDataGroups: true, hash: 'sha256', options: { dsaEncoding: 'der' } },
  { name: 'ECDSA brainpoolP384r1 explicit, real DE (CSCA bP512r1 explicit)', folder: 'real_sods_gmrtd/DE', withDataGroups: false, hash: 'sha384', options: { dsaEncoding: 'der' } },
];

const ITERATIONS = Number(process.env.ITERATIONS ?? 1000);
const WARMUP = 100;
const NOW = new Date('2026-11-22T12:00:00Z');

function projectRoot(): string {
  // Compiled to dist/bench, run from anywhere: walk up to the folder holding the fixtures.
  let dir = __dirname;
  while (!existsSync(join(dir, 'test', 'fixtures', 'icao', 'expected_results.json'))) {
    const parent = dirname(dir);
    if (parent === dir) throw new Error('cannot find test/fixtures/icao above ' + __dirname);
    dir = parent;
  }
  return dir;
}

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];
}

async function time(run: () => unknown): Promise<{ p50: number; p99: number; mean: number }> {
  for (let i = 0; i < WARMUP; i++) await run();
  const samples: number[] = [];
  for (let i = 0; i < ITERATIONS; i++) {
    const start = performance.now();
    await run();
    samples.push(performance.now() - start);
  }
  samples.sort((a, b) => a - b);
  return { p50: percentile(samples, 50), p99: percentile(samples, 99), mean: samples.reduce((a, b) => a + b, 0) / samples.length };
}

async function main(): Promise<void> {
  const fixtures = join(projectRoot(), 'test', 'fixtures', 'icao');
  const read = (...parts: string[]) => readFileSync(join(fixtures, ...parts));
  console.log(`chip Passive Authentication latency, ${ITERATIONS} runs after ${WARMUP} warm-up, Node ${process.version}`);
  console.log('family'.padEnd(66) + 'p50 ms'.padStart(9) + 'p99 ms'.padStart(9) + 'mean ms'.padStart(9) + '  baseline p50  ratio  goal');

  let allMet = true;
  for (const family of FAMILIES) {
    const sod = read(family.folder, 'EF_SOD.bin');
    const store = new InMemoryCscaTrustStore();
    store.add(read(family.folder, 'CSCA.der'));
    const dataGroups = family.withDataGroups ? new Map([[1, read('synthetic', 'EF_DG1.bin')], [2, read('synthetic', 'EF_DG2.bin')]]) : new Map<number, Buffer>();

    const check = await verifyPassiveAuthentication({ sod, dataGroups, trustStore: store, now: NOW });
    const statuses = Object.values(check.verdicts).map((v) => v.status);
    const expected = family.withDataGroups ? ['succeeded', 'succeeded', 'succeeded'] : ['succeeded', 'succeeded', 'not_checked'];
    if (statuses.join() !== expected.join()) throw new Error(`${family.name}: unexpected verdicts ${JSON.stringify(check.verdicts)}`);

    const full = await time(() => verifyPassiveAuthentication({ sod, dataGroups, trustStore: store, now: NOW }));
    const dsKey = new X509Certificate(read(family.folder, 'DSC.der')).publicKey;
    const { signerInfo } = parseSod(sod);
    const signedAttrs = signerInfo.signedAttrsForSignature!;
    const signature = signerInfo.signature;
    if (!cryptoVerify(family.hash, signedAttrs, { key: dsKey, ...family.options }, signature)) throw new Error(`${family.name}: baseline does not verify`);
    const baseline = await time(() => cryptoVerify(family.hash, signedAttrs, { key: dsKey, ...family.options }, signature));

    const met = full.p99 < 50;
    allMet &&= met;
    console.log(
      family.name.padEnd(66) +
        full.p50.toFixed(3).padStart(9) +
        full.p99.toFixed(3).padStart(9) +
        full.mean.toFixed(3).padStart(9) +
        baseline.p50.toFixed(3).padStart(14) +
        (full.p50 / baseline.p50).toFixed(1).padStart(7) +
        (met ? '  met' : '  MISSED'),
    );
  }
  if (!allMet) process.exitCode = 1;
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
