import { StringDecoder } from 'node:string_decoder';

/**
 * The lines of `input` (UTF-8, `\n` or `\r\n`), each at most `max` characters: a longer line is dropped as it
 * arrives and given as `null`, so a line that never ends (`cat /dev/zero | npm run cli -- batch`) holds no more
 * than `max` characters in memory, where node's readline would keep all of it. A last line without its newline
 * is still a line.
 */
export async function* boundedLines(input: AsyncIterable<Buffer | string>, max: number): AsyncGenerator<string | null> {
  const decoder = new StringDecoder('utf8');
  let pending = '';
  let overlong = false;
  const take = (text: string): (string | null)[] => {
    const lines: (string | null)[] = [];
    let from = 0;
    for (let nl = text.indexOf('\n'); nl !== -1; nl = text.indexOf('\n', from)) {
      const line = (pending + text.slice(from, nl)).replace(/\r$/, '');
      lines.push(overlong || line.length > max ? null : line);
      pending = '';
      overlong = false;
      from = nl + 1;
    }
    if (!overlong) pending += text.slice(from);
    // One more than `max` for the `\r` of a `\r\n` still to come.
    if (pending.length > max + 1) {
      overlong = true;
      pending = '';
    }
    return lines;
  };
  for await (const chunk of input) yield* take(typeof chunk === 'string' ? chunk : decoder.write(chunk));
  yield* take(decoder.end());
  const last = pending.replace(/\r$/, '');
  if (overlong || last.length > max) yield null;
  else if (last) yield last;
}
