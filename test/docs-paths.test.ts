import fs from 'node:fs';
import path from 'node:path';

/**
 * The docs name files that exist (issue 41, item 5): every file path that docs/*.md and README.md
 * name, in a link or in backticks, is in the tree. A path is a link target that is not a URL or an
 * anchor, or a backticked span that starts with one of the repository's top-level folders or ends
 * with a file extension we keep. Built output (`dist/`), installed packages and the data directory
 * are not in a clone, so they are not asked for; a glob or a placeholder (`*`, `<id>`, `...`) names no
 * one file.
 */
const ROOT = path.resolve(__dirname, '..');
const SKIPPED_DIRS = new Set(['node_modules', 'dist', '.git', '.data', 'coverage']);
const EXTENSIONS = /\.(ts|mts|js|mjs|cjs|md|json|ya?ml|html|css|sql|sh|graphql|der|pem|cer|crl|ml|png|jpe?g|ndjson|csv|txt|toml|xml|zip|gz)$/;
/**
 * A bare file name (no folder) is looked for anywhere in the tree only when it has the extension of a
 * file we write: `package.json`, `tesseract.js` or an export's `manifest.json` name no file of ours.
 */
const OWN_FILE_EXTENSIONS = /\.(ts|mts|mjs|md|ya?ml|graphql|sql|sh)$/;
/** Named before the work that writes them has landed; each entry says which. Remove an entry when its file exists. */
/** Paths a doc may name before the work that writes them lands (none now). */
const PENDING = new Set<string>([]);
const NOT_IN_A_CLONE = /^(dist|node_modules|\.data|coverage)(\/|$)/;

function walk(dir: string, out: string[] = []): string[] {
  for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
    if (SKIPPED_DIRS.has(e.name)) continue;
    const p = path.join(dir, e.name);
    if (e.isDirectory()) walk(p, out);
    else out.push(p);
  }
  return out;
}

const TOP_LEVEL = new Set(fs.readdirSync(ROOT, { withFileTypes: true }).filter((e) => e.isDirectory() && !SKIPPED_DIRS.has(e.name)).map((e) => e.name));
const BASENAMES = new Set(walk(ROOT).map((p) => path.basename(p)));

/** The Markdown files the check reads: docs/*.md and the README. */
const DOCS = [...fs.readdirSync(path.join(ROOT, 'docs')).filter((f) => f.endsWith('.md')).map((f) => path.join(ROOT, 'docs', f)), path.join(ROOT, 'README.md')];

type Named = { doc: string; line: number; raw: string; resolved: string[] };

/** Text outside fenced code blocks (commands and samples there are examples, not references). */
function proseLines(text: string): { line: number; text: string }[] {
  let fenced = false;
  return text.split('\n').flatMap((t, i) => {
    if (/^\s*(```|~~~)/.test(t)) {
      fenced = !fenced;
      return [];
    }
    return fenced ? [] : [{ line: i + 1, text: t }];
  });
}

const placeholder = (p: string): boolean => /[*<>{}$\s]|\.\.\.|\|/.test(p);

/** The candidates a doc's mention may mean: from the repository root, or from the doc's own folder. */
function candidates(doc: string, p: string): string[] {
  const clean = p.replace(/^\.\//, '').replace(/[#?].*$/, '');
  return [path.join(ROOT, clean), path.join(path.dirname(doc), clean)];
}

export function namedPaths(doc: string): Named[] {
  const found: Named[] = [];
  for (const { line, text } of proseLines(fs.readFileSync(doc, 'utf8'))) {
    // Links: [text](target), the target a relative file (anchors, URLs and mail addresses are not files).
    for (const m of text.matchAll(/\]\(([^)\s]+)\)/g)) {
      const target = decodeURI(m[1]);
      if (/^([a-z][a-z0-9+.-]*:|#|\/)/i.test(target)) continue;
      const file = target.replace(/#.*$/, '');
      if (!file || placeholder(file) || NOT_IN_A_CLONE.test(file)) continue;
      found.push({ doc, line, raw: target, resolved: [path.resolve(path.dirname(doc), file)] });
    }
    // Backticked spans: a path under a top-level folder, or a file name with an extension we keep.
    for (const m of text.replace(/\]\([^)]*\)/g, '').matchAll(/`([^`\n]+)`/g)) {
      const span = m[1].trim().replace(/:\d+(-\d+)?$/, ''); // `file.ts:12` names file.ts
      if (placeholder(span) || NOT_IN_A_CLONE.test(span) || /^[a-z][a-z0-9+.-]*:\/\//i.test(span) || span.startsWith('/')) continue;
      if (span.includes('/')) {
        const first = span.replace(/^\.\.?\//, '').split('/')[0];
        const underTopLevel = TOP_LEVEL.has(first) || span.startsWith('../');
        if (!underTopLevel && !EXTENSIONS.test(span)) continue; // `text/html`, `approve/decline`: not paths
        if (!/^[\w.@/-]+$/.test(span)) continue;
        found.push({ doc, line, raw: span, resolved: candidates(doc, span) });
      } else if (OWN_FILE_EXTENSIONS.test(span) && /^[\w.@-]+$/.test(span) && !/^\d/.test(span)) {
        found.push({ doc, line, raw: span, resolved: [] }); // a bare file name: somewhere in the tree
      }
    }
  }
  return found;
}

const pending = (n: Named): boolean => n.resolved.some((p) => PENDING.has(path.relative(ROOT, p)));
const exists = (n: Named): boolean => (n.resolved.length ? n.resolved.some((p) => fs.existsSync(p)) : BASENAMES.has(n.raw)) || pending(n);

describe('file paths named in docs/*.md and README.md', () => {
  const named = DOCS.flatMap(namedPaths);

  it('finds the paths the docs name (the check is not vacuous)', () => {
    expect(named.length).toBeGreaterThan(200);
    expect(named.some((n) => n.raw === 'src/auth/authorization-policy.ts')).toBe(true);
  });

  it('finds every one of them in the tree', () => {
    const missing = named.filter((n) => !exists(n)).map((n) => `${path.relative(ROOT, n.doc)}:${n.line} ${n.raw}`);
    expect(missing).toEqual([]);
  });
});
