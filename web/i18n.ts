// Shared by the server's pages and the hosted page's browser bundle, so it imports nothing.

/** The text with each `{name}` replaced by its value; a name without a value becomes empty. */
export function fill(text: string, values: Record<string, string | number>): string {
  return text.replace(/\{(\w+)\}/g, (_m, k: string) => String(values[k] ?? ''));
}

/** The picker of a page's messages: one table per shipped locale, each with every key of the others. */
export const byLocale =
  <L extends string, T>(tables: Record<L, T>) =>
  (locale: L): T =>
    tables[locale];
