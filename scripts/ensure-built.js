#!/usr/bin/env node
// Builds dist/ only when a TypeScript source is newer than the last build, so `npm run cli` and
// `npm start` stay fast on repeated use. Compiler output goes to stderr: stdout belongs to the CLI.
const fs = require('node:fs');
const path = require('node:path');
const { execFileSync } = require('node:child_process');

const root = path.resolve(__dirname, '..');
const marker = path.join(root, 'dist', 'app', 'cli.js');
const sources = ['app', 'src', 'http', 'web', 'schema', 'entities', 'rest-adapter', 'subscriptions', 'bench', 'ormconfig.ts', 'tsconfig.json', 'tsconfig.build.json', 'package.json'];

function newest(p) {
  const full = path.join(root, p);
  if (!fs.existsSync(full)) return 0;
  const st = fs.statSync(full);
  if (!st.isDirectory()) return st.mtimeMs;
  return fs.readdirSync(full).reduce((m, name) => Math.max(m, newest(path.join(p, name))), 0);
}

const built = fs.existsSync(marker) ? fs.statSync(marker).mtimeMs : 0;
if (sources.some((s) => newest(s) > built)) {
  execFileSync(process.execPath, [require.resolve('typescript/bin/tsc'), '-p', path.join(root, 'tsconfig.build.json')], {
    cwd: root,
    stdio: ['ignore', process.stderr, process.stderr],
  });
  fs.utimesSync(marker, new Date(), new Date());
}
