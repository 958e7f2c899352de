import { SaxesParser } from 'saxes';
import { StringDecoder } from 'node:string_decoder';
import type { Readable } from 'node:stream';
import { SanctionsLoadError } from './sanctions-load.error';

/** A small element tree for ONE record; the file as a whole is never held as a tree. */
export interface XmlNode {
  name: string;
  attrs: Record<string, string>;
  children: XmlNode[];
  text: string;
  line: number;
  column: number;
}

export type ListInput = Buffer | string | Readable | AsyncIterable<Buffer | string>;

async function* chunksOf(input: ListInput): AsyncIterable<string> {
  if (typeof input === 'string') {
    yield input;
    return;
  }
  const decoder = new StringDecoder('utf8');
  if (Buffer.isBuffer(input)) {
    // Feed in slices so a large Buffer is parsed as a stream too.
    for (let i = 0; i < input.length; i += 1 << 20) yield decoder.write(input.subarray(i, i + (1 << 20)));
  } else {
    for await (const chunk of input as AsyncIterable<Buffer | string>) {
      yield typeof chunk === 'string' ? chunk : decoder.write(chunk);
    }
  }
  const rest = decoder.end();
  if (rest) yield rest;
}

export interface XmlRecordHandlers {
  /** Local names (namespace prefix ignored) of elements delivered whole to onRecord. */
  records: ReadonlySet<string>;
  onRecord(node: XmlNode): void;
  /** Text of elements outside records, by local name (headers like Publish_Date). */
  onHeaderText?(name: string, text: string, attrs: Record<string, string>): void;
  /** The first element must be one of these, or the file is the wrong format. */
  roots: ReadonlySet<string>;
  onRoot?(attrs: Record<string, string>): void;
}

const localName = (n: string): string => {
  const i = n.indexOf(':');
  return i < 0 ? n : n.slice(i + 1);
};

/**
 * Streams an XML document through saxes and hands each record element over as a small tree.
 * Any well-formedness error, a wrong root, or an error thrown by onRecord becomes a
 * SanctionsLoadError naming the file and line/column.
 */
export async function readXmlRecords(input: ListInput, fileName: string, h: XmlRecordHandlers): Promise<void> {
  const parser = new SaxesParser({ fileName, position: true });
  const stack: XmlNode[] = [];
  let recordDepth = -1;
  let depth = 0;
  let sawRoot = false;
  let failure: SanctionsLoadError | undefined;
  const headerText: string[] = [];

  const fail = (reason: string, line = parser.line, column = parser.column): void => {
    failure ??= new SanctionsLoadError(fileName, { line, column }, reason);
  };

  parser.on('error', (err) => {
    fail(err.message.replace(/^[^:]*:\d+:\d+: /, ''));
  });
  parser.on('opentag', (tag) => {
    const name = localName(tag.name);
    if (!sawRoot) {
      sawRoot = true;
      if (!h.roots.has(name)) fail(`unexpected root element <${tag.name}>, expected ${[...h.roots].join(' or ')}`);
      else h.onRoot?.(tag.attributes as Record<string, string>);
    }
    depth++;
    headerText.length = 0;
    if (recordDepth < 0 && h.records.has(name)) recordDepth = depth;
    if (recordDepth > 0) {
      const node: XmlNode = { name, attrs: { ...(tag.attributes as Record<string, string>) }, children: [], text: '', line: parser.line, column: parser.column };
      stack[stack.length - 1]?.children.push(node);
      stack.push(node);
    }
  });
  parser.on('text', (t) => {
    if (recordDepth > 0) {
      const top = stack[stack.length - 1];
      if (top) top.text += t;
    } else headerText.push(t);
  });
  parser.on('cdata', (t) => {
    const top = stack[stack.length - 1];
    if (recordDepth > 0 && top) top.text += t;
  });
  parser.on('closetag', (tag) => {
    if (recordDepth > 0) {
      const node = stack.pop();
      if (depth === recordDepth && node) {
        recordDepth = -1;
        if (!failure) {
          try {
            h.onRecord(node);
          } catch (err) {
            fail(err instanceof Error ? err.message : String(err), node.line, node.column);
          }
        }
      }
    } else if (h.onHeaderText && headerText.length) {
      h.onHeaderText(localName(tag.name), headerText.join('').trim(), tag.attributes as Record<string, string>);
    }
    headerText.length = 0;
    depth--;
  });

  for await (const chunk of chunksOf(input)) {
    parser.write(chunk);
    if (failure) throw failure;
  }
  parser.close();
  if (failure) throw failure;
  if (!sawRoot) throw new SanctionsLoadError(fileName, { line: parser.line, column: parser.column }, 'the file holds no XML element');
}

/** Helpers for reading a record tree without null checks everywhere. */
export function child(node: XmlNode | undefined, name: string): XmlNode | undefined {
  return node?.children.find((c) => c.name === name);
}

export function childrenNamed(node: XmlNode | undefined, name: string): XmlNode[] {
  return node ? node.children.filter((c) => c.name === name) : [];
}

export function textOf(node: XmlNode | undefined, name?: string): string {
  const n = name ? child(node, name) : node;
  return n ? n.text.trim() : '';
}

/** Every descendant with the given local name, depth first. */
export function descendants(node: XmlNode, name: string, out: XmlNode[] = []): XmlNode[] {
  for (const c of node.children) {
    if (c.name === name) out.push(c);
    descendants(c, name, out);
  }
  return out;
}

/** Record fields the normalised model does not use, flattened to path -> text. */
export function flattenExtra(node: XmlNode, skip: ReadonlySet<string>, prefix = '', out: Record<string, string | string[]> = {}): Record<string, string | string[]> {
  for (const c of node.children) {
    if (skip.has(c.name)) continue;
    const path = prefix ? `${prefix}.${c.name}` : c.name;
    for (const [k, v] of Object.entries(c.attrs)) if (v) add(out, `${path}@${k}`, v);
    const t = c.text.trim();
    if (t && c.children.length === 0) add(out, path, t);
    flattenExtra(c, skip, path, out);
  }
  return out;
}

function add(out: Record<string, string | string[]>, k: string, v: string): void {
  const prev = out[k];
  if (prev === undefined) out[k] = v;
  else if (Array.isArray(prev)) prev.push(v);
  else out[k] = [prev, v];
}
