import 'reflect-metadata';
import fs from 'node:fs';
import path from 'node:path';
import { lexicographicSortSchema, printSchema } from 'graphql';
import { buildGraphQLSchema } from '../schema/build-schema';

/**
 * Prints the SDL of the code's schema. `--write` updates schema/schema.graphql; `--check` exits 1
 * when the committed file has drifted from the code. Resolvers are never executed here.
 */
export function currentSdl(): string {
  const schema = buildGraphQLSchema({ get: () => ({}) });
  return `${printSchema(lexicographicSortSchema(schema)).trim()}\n`;
}

if (require.main === module) {
  const file = path.resolve(__dirname, '..', '..', 'schema', 'schema.graphql');
  const sdl = currentSdl();
  if (process.argv.includes('--write')) {
    fs.writeFileSync(file, sdl);
  } else if (process.argv.includes('--check')) {
    const committed = fs.existsSync(file) ? fs.readFileSync(file, 'utf8') : '';
    if (committed !== sdl) {
      process.stderr.write('schema/schema.graphql has drifted from the code: run `npm run schema:emit`\n');
      process.exit(1);
    }
  } else {
    process.stdout.write(sdl);
  }
}
