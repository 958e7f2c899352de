// Renders GraphiQL once at build time into dist/web/graphiql/graphiql.html.gz. The renderer
// package holds a 10 MB bundle as a string; loading it in the server cost ~12 MB of heap for the
// life of the process (docs/benchmarks.md, "Server memory"), for a page only developers open.
const fs = require('node:fs');
const path = require('node:path');
const zlib = require('node:zlib');
const { renderGraphiQL } = require('@graphql-yoga/render-graphiql');

const out = path.resolve(__dirname, '..', 'dist', 'web', 'graphiql');
const html = renderGraphiQL({ endpoint: '/graphql', subscriptionsProtocol: 'WS', title: 'Identity verification GraphQL' });
fs.mkdirSync(out, { recursive: true });
fs.writeFileSync(path.join(out, 'graphiql.html.gz'), zlib.gzipSync(html, { level: 9 }));
