// Bundles the hosted page's browser code (web/hosted/client) with esbuild into dist/web/hosted/assets,
// type-checked first against the DOM library, with gzip copies the server sends to clients that accept them.
const { execFileSync } = require('node:child_process');
const fs = require('node:fs');
const path = require('node:path');
const zlib = require('node:zlib');
const esbuild = require('esbuild');

const root = path.resolve(__dirname, '..');
const client = path.join(root, 'web', 'hosted', 'client');
const out = path.join(root, 'dist', 'web', 'hosted', 'assets');

execFileSync(process.execPath, [require.resolve('typescript/bin/tsc'), '-p', path.join(client, 'tsconfig.json')], { stdio: 'inherit' });
fs.mkdirSync(out, { recursive: true });
esbuild.buildSync({
  entryPoints: [path.join(client, 'main.ts')],
  bundle: true,
  minify: true,
  format: 'iife',
  target: 'es2020',
  outfile: path.join(out, 'app.js'),
  legalComments: 'none',
});
esbuild.buildSync({ entryPoints: [path.join(client, 'app.css')], bundle: true, minify: true, outfile: path.join(out, 'app.css') });
for (const f of ['app.js', 'app.css']) {
  const p = path.join(out, f);
  fs.writeFileSync(`${p}.gz`, zlib.gzipSync(fs.readFileSync(p), { level: 9 }));
}
