import { buildSync } from 'esbuild';
import path from 'node:path';
import vm from 'node:vm';
import { BSI_2008, bsiFiles } from './fixtures';

/**
 * The core has no runtime dependency on Node: it is bundled for a neutral platform (esbuild fails
 * on any import it cannot resolve without Node, `node:` built-ins included, and none is marked
 * external), then run in a bare V8 context with no `require`, `process`, `Buffer` or `crypto`, as
 * under React Native's Hermes (with only `self`/`window` = the global, as React Native sets them). There it reads the BSI test passport from the simulated chip (whose
 * own code is bundled the same way) through BAC and 3DES secure messaging.
 */

const root = path.join(__dirname, '..');

function bundle(): string {
  const result = buildSync({
    stdin: {
      contents: `export { readPassport } from './src/index'; export { SimulatedChip } from './test/simulated-chip';`,
      resolveDir: root,
      loader: 'ts',
    },
    bundle: true,
    platform: 'neutral',
    mainFields: ['main', 'module'],
    format: 'iife',
    globalName: 'chipReader',
    write: false,
    logLevel: 'silent',
  });
  return result.outputFiles[0].text;
}

it('bundles without Node built-ins and reads a chip in a context that has none', async () => {
  const code = bundle();
  expect(code).not.toMatch(/require\(["'](node:)?(crypto|fs|buffer|stream|util)["']\)/);
  const context = vm.createContext({ files: bsiFiles(), mrz: BSI_2008.mrz });
  // What React Native's setUpGlobals does before any app code: `self` and `window` name the global (node-forge looks for one).
  vm.runInContext('globalThis.self = globalThis; globalThis.window = globalThis;', context);
  vm.runInContext(code, context);
  expect(vm.runInContext('[typeof require, typeof process, typeof Buffer, typeof crypto]', context)).toEqual(['undefined', 'undefined', 'undefined', 'undefined']);
  const read = await vm.runInContext(
    `(async () => {
      const chip = new chipReader.SimulatedChip({ files, mrz });
      let n = 0;
      const r = await chipReader.readPassport(chip, { mrz, random: (k) => Uint8Array.from({ length: k }, () => (n = (n * 31 + 7) & 0xff)) });
      return { dg1: Array.from(r.dataGroups.get(1)), dg2Length: r.dataGroups.get(2).length, groups: [...r.dataGroups.keys()] };
    })()`,
    context,
  );
  expect(read.groups).toEqual([1, 2, 14]);
  expect(read.dg1).toEqual([...BSI_2008.dg[1]]);
  expect(read.dg2Length).toBe(BSI_2008.dg[2].length);
});
