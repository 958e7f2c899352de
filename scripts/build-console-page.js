// Bundles the console's passkey script (web/console/client) with esbuild into dist/web/console/assets,
// type-checked first against the DOM library.
const { execFileSync } = require('node:child_process');
const path = require('node:path');
const esbuild = require('esbuild');

const root = path.resolve(__dirname, '..');
const client = path.join(root, 'web', 'console', 'client');
execFileSync(process.execPath, [require.resolve('typescript/bin/tsc'), '-p', path.join(client, 'tsconfig.json')], { stdio: 'inherit' });
esbuild.buildSync({
  entryPoints: [path.join(client, 'console.ts')],
  bundle: true,
  minify: true,
  format: 'iife',
  target: 'es2020',
  outfile: path.join(root, 'dist', 'web', 'console', 'assets', 'console.js'),
  legalComments: 'none',
});
