// Builds the typed client (clients/typescript) into clients/typescript/dist. tsc does not copy a .d.ts
// from src, so the generated types are copied beside the emitted declarations that import them.
const fs = require('node:fs');
const path = require('node:path');
const { execFileSync } = require('node:child_process');

const pkg = path.resolve(__dirname, '..', 'clients', 'typescript');
execFileSync(process.execPath, [require.resolve('typescript/bin/tsc'), '-p', path.join(pkg, 'tsconfig.json')], { stdio: 'inherit' });
fs.mkdirSync(path.join(pkg, 'dist', 'generated'), { recursive: true });
fs.copyFileSync(path.join(pkg, 'src', 'generated', 'openapi.d.ts'), path.join(pkg, 'dist', 'generated', 'openapi.d.ts'));
