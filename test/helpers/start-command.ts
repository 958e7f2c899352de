import fs from 'node:fs';
import path from 'node:path';

/**
 * `npm start`'s command as package.json holds it (`node <flags> dist/app/main.js`): the tests and
 * benches start the server with the same node flags, so they measure what `npm start`, the image
 * and the Kubernetes gateway run (docs/operations.md, "The server's heap").
 */
export function startCommand(root: string): { nodeFlags: string[]; entry: string } {
  const pkg = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8')) as { scripts: Record<string, string> };
  const words = pkg.scripts.start.trim().split(/\s+/);
  const entry = words.at(-1) ?? '';
  if (words[0] !== 'node' || !entry.endsWith('.js')) throw new Error(`npm start is not "node [flags] <entry>.js": ${pkg.scripts.start}`);
  return { nodeFlags: words.slice(1, -1), entry };
}
