import { createPublicKey, KeyObject, sign, verify, createHash } from 'node:crypto';
import { AUDIT_ENCODING, canonicalJson, ChainedFields, entryHash, GENESIS_HASH } from '../../entities/audit-canonical';

/** One entry as a segment line: the hashed fields under their column names, plus the hash. */
export type SegmentEntry = {
  log_id: string;
  seq: number;
  prev_hash: string;
  hash: string;
  id: string;
  tenant_id: string | null;
  livemode: boolean | null;
  action: string;
  subject_id: string;
  detail: Record<string, unknown>;
  created_at: string;
};

/** The signed last line of a segment. */
export type SegmentHead = {
  type: 'head';
  encoding: typeof AUDIT_ENCODING;
  log_id: string;
  day: string;
  first_seq: number;
  last_seq: number;
  count: number;
  /** The hash the first entry links to: the previous segment's last hash (64 zeros at the log's start). */
  prev_hash: string;
  last_hash: string;
  /** SHA-256 (hex) of the entry lines, each with its newline, so the head signs the bytes too. */
  entries_sha256: string;
  /** SHA-256 (hex) of the public key's DER (SPKI), naming the key without trusting the file. */
  key_id: string;
  /** Ed25519 public key, base64 of its DER (SPKI). */
  public_key: string;
  /** Ed25519 over the canonical JSON of this head without `signature`, base64. */
  signature: string;
};

export const toFields = (e: SegmentEntry): ChainedFields => ({
  logId: e.log_id,
  logSeq: e.seq,
  prevHash: e.prev_hash,
  id: e.id,
  tenantId: e.tenant_id,
  livemode: e.livemode,
  action: e.action,
  subjectId: e.subject_id,
  detail: e.detail,
  createdAt: e.created_at,
});

export const fromFields = (f: ChainedFields, hash: string): SegmentEntry => ({
  log_id: f.logId,
  seq: f.logSeq,
  prev_hash: f.prevHash,
  hash,
  id: f.id,
  tenant_id: f.tenantId,
  livemode: f.livemode,
  action: f.action,
  subject_id: f.subjectId,
  detail: f.detail,
  created_at: f.createdAt,
});

export const keyIdOf = (publicKey: KeyObject): string => createHash('sha256').update(publicKey.export({ type: 'spki', format: 'der' })).digest('hex');

/** The file name of a segment: `<log>/<day>-<first seq, 12 digits>.ndjson`, with the log id's colons as dots. */
export const segmentKey = (logId: string, day: string, firstSeq: number): string => `${logId.replace(/:/g, '.')}/${day}-${String(firstSeq).padStart(12, '0')}.ndjson`;

/** Builds a segment: one canonical-JSON line per entry, then the signed head. Deterministic (Ed25519 signatures are), so a rerun writes the same bytes. */
export function buildSegment(entries: SegmentEntry[], day: string, privateKey: KeyObject): { body: Buffer; head: SegmentHead } {
  if (entries.length === 0) throw new Error('a segment holds at least one entry');
  const lines = entries.map((e) => `${canonicalJson(e)}\n`).join('');
  const publicKey = createPublicKey(privateKey);
  const unsigned: Omit<SegmentHead, 'signature'> = {
    type: 'head',
    encoding: AUDIT_ENCODING,
    log_id: entries[0].log_id,
    day,
    first_seq: entries[0].seq,
    last_seq: entries[entries.length - 1].seq,
    count: entries.length,
    prev_hash: entries[0].prev_hash,
    last_hash: entries[entries.length - 1].hash,
    entries_sha256: createHash('sha256').update(lines, 'utf8').digest('hex'),
    key_id: keyIdOf(publicKey),
    public_key: publicKey.export({ type: 'spki', format: 'der' }).toString('base64'),
  };
  const signature = sign(null, Buffer.from(canonicalJson(unsigned), 'utf8'), privateKey).toString('base64');
  const head: SegmentHead = { ...unsigned, signature };
  return { body: Buffer.from(`${lines}${canonicalJson(head)}\n`, 'utf8'), head };
}

/**
 * Why a run of entries read from the database does not chain (null when it does): each entry's
 * hash is recomputed from its fields, and each links to the one before, the first to `prevHash`.
 * The replicator signs nothing that fails this: a row changed behind the trigger's back (e.g. with
 * `session_replication_role = replica`) must not be sealed as genuine.
 */
export function chainBreak(entries: readonly SegmentEntry[], prevHash: string): { seq: number; reason: string } | null {
  let prev = prevHash;
  let seq = entries[0]?.seq;
  for (const e of entries) {
    if (e.seq !== seq) return { seq: e.seq, reason: `expected sequence ${seq}` };
    if (e.prev_hash !== prev) return { seq: e.seq, reason: "prev_hash is not the previous entry's hash" };
    if (entryHash(toFields(e)) !== e.hash) return { seq: e.seq, reason: "the entry's hash does not match its fields (changed in the database)" };
    prev = e.hash;
    seq++;
  }
  return null;
}

export type VerifyFailure = { file: string; line?: number; entry_id?: string; seq?: number; reason: string };
export type VerifyResult = { ok: true; logs: { log_id: string; segments: number; entries: number; last_seq: number; last_hash: string; key_ids: string[] }[] } | ({ ok: false } & VerifyFailure);

type ParsedSegment = { file: string; head: SegmentHead; entries: SegmentEntry[] };

/** Parses and checks one segment on its own: every line's hash, every link, the count, the entries' digest and the signature. */
export function verifySegment(file: string, body: Buffer, pinnedKeyIds?: readonly string[]): ParsedSegment | VerifyFailure {
  const text = body.toString('utf8');
  if (!text.endsWith('\n')) return { file, reason: 'the segment does not end with its head line (truncated?)' };
  const lines = text.slice(0, -1).split('\n');
  let head: SegmentHead;
  try {
    head = JSON.parse(lines[lines.length - 1]) as SegmentHead;
  } catch {
    return { file, line: lines.length, reason: 'the last line is not a JSON head' };
  }
  if (head?.type !== 'head' || head.encoding !== AUDIT_ENCODING) return { file, line: lines.length, reason: `the last line is not a ${AUDIT_ENCODING} head` };
  const { signature, ...unsigned } = head;
  let publicKey: KeyObject;
  try {
    publicKey = createPublicKey({ key: Buffer.from(head.public_key, 'base64'), format: 'der', type: 'spki' });
  } catch {
    return { file, line: lines.length, reason: 'the head carries no valid public key' };
  }
  if (keyIdOf(publicKey) !== head.key_id) return { file, line: lines.length, reason: 'key_id is not the hash of the public key' };
  if (pinnedKeyIds && !pinnedKeyIds.includes(head.key_id)) return { file, line: lines.length, reason: `signed by key ${head.key_id}, not a pinned key` };
  if (typeof signature !== 'string' || !verify(null, Buffer.from(canonicalJson(unsigned), 'utf8'), publicKey, Buffer.from(signature, 'base64'))) {
    return { file, line: lines.length, reason: 'the head signature does not verify' };
  }
  const entryLines = lines.slice(0, -1);
  const entries: SegmentEntry[] = [];
  let prev = head.prev_hash;
  let seq = head.first_seq;
  for (let i = 0; i < entryLines.length; i++) {
    const at = { file, line: i + 1 };
    let e: SegmentEntry;
    try {
      e = JSON.parse(entryLines[i]) as SegmentEntry;
    } catch {
      return { ...at, reason: 'the line is not JSON' };
    }
    const id = { ...at, entry_id: typeof e?.id === 'string' ? e.id : undefined, seq: typeof e?.seq === 'number' ? e.seq : undefined };
    if (e.log_id !== head.log_id) return { ...id, reason: `the entry belongs to log ${e.log_id}, not ${head.log_id}` };
    if (e.seq !== seq) return { ...id, reason: `expected sequence ${seq}, found ${e.seq} (an entry dropped or reordered)` };
    if (e.prev_hash !== prev) return { ...id, reason: 'prev_hash is not the previous entry\'s hash (an entry dropped, reordered or changed)' };
    let computed: string;
    try {
      computed = entryHash(toFields(e));
    } catch (err) {
      return { ...id, reason: `the entry cannot be encoded: ${(err as Error).message}` };
    }
    if (computed !== e.hash) return { ...id, reason: 'the entry\'s hash does not match its fields (the entry was changed)' };
    if (`${canonicalJson(e)}` !== entryLines[i]) return { ...id, reason: 'the line is not in canonical form' };
    entries.push(e);
    prev = e.hash;
    seq++;
  }
  if (entries.length !== head.count || seq - 1 !== head.last_seq) return { file, line: lines.length, reason: `the head counts ${head.count} entries up to ${head.last_seq}; the file holds ${entries.length}` };
  if (prev !== head.last_hash) return { file, line: lines.length, reason: 'the head\'s last_hash is not the last entry\'s hash' };
  const digest = createHash('sha256').update(entryLines.map((l) => `${l}\n`).join(''), 'utf8').digest('hex');
  if (digest !== head.entries_sha256) return { file, line: lines.length, reason: 'entries_sha256 does not match the entry lines' };
  return { file, head, entries };
}

/**
 * Checks a set of segments: each on its own, then per log, in sequence order, that each segment
 * starts where the previous ended (sequence and hash) and that the first starts at the log's
 * beginning unless `allowPartial` (a single segment checked alone).
 */
export function verifySegments(files: { file: string; body: Buffer }[], opts: { pinnedKeyIds?: readonly string[]; allowPartial?: boolean } = {}): VerifyResult {
  const byLog = new Map<string, ParsedSegment[]>();
  for (const f of files) {
    const r = verifySegment(f.file, f.body, opts.pinnedKeyIds);
    if (!('head' in r)) return { ok: false, ...r };
    byLog.set(r.head.log_id, [...(byLog.get(r.head.log_id) ?? []), r]);
  }
  const logs: Extract<VerifyResult, { ok: true }>['logs'] = [];
  for (const [logId, segments] of [...byLog].sort(([a], [b]) => a.localeCompare(b))) {
    segments.sort((a, b) => a.head.first_seq - b.head.first_seq);
    let prev: SegmentHead | null = null;
    for (const s of segments) {
      if (prev === null) {
        if (!opts.allowPartial && (s.head.first_seq !== 1 || s.head.prev_hash !== GENESIS_HASH)) {
          return { ok: false, file: s.file, line: 1, entry_id: s.entries[0].id, seq: s.head.first_seq, reason: `the log ${logId} starts at sequence ${s.head.first_seq}: earlier segments are missing` };
        }
      } else if (s.head.first_seq !== prev.last_seq + 1 || s.head.prev_hash !== prev.last_hash) {
        return { ok: false, file: s.file, line: 1, entry_id: s.entries[0].id, seq: s.head.first_seq, reason: `does not continue the previous segment (which ends at ${prev.last_seq}): a segment is missing, repeated or altered` };
      }
      prev = s.head;
    }
    logs.push({ log_id: logId, segments: segments.length, entries: segments.reduce((n, s) => n + s.entries.length, 0), last_seq: prev!.last_seq, last_hash: prev!.last_hash, key_ids: [...new Set(segments.map((s) => s.head.key_id))] });
  }
  return { ok: true, logs };
}
