import type { DocumentReader, FaceMatcher, LivenessVerifier, PresentationAttackDetector, ProviderResult } from './check-providers';
import type { KnownFaceAnalyses } from './engines/face-analysis-memo';

/** The engine calls a check worker runs: one per provider interface, with that interface's input and answer. */
export type CheckTaskMap = {
  document: { input: Parameters<DocumentReader['read']>[0]; output: Awaited<ReturnType<DocumentReader['read']>> };
  face: { input: Parameters<FaceMatcher['match']>[0]; output: Awaited<ReturnType<FaceMatcher['match']>> };
  liveness: { input: Parameters<LivenessVerifier['verify']>[0]; output: Awaited<ReturnType<LivenessVerifier['verify']>> };
  antiSpoof: { input: Parameters<PresentationAttackDetector['detect']>[0]; output: ProviderResult };
};
export type CheckTaskKind = keyof CheckTaskMap;

/**
 * One session's run of its checks, as its engine calls share it: the face analyses made so far (added to by
 * each call) and when the run started (the pool serves older runs' calls first).
 */
export type CheckRun = { faces: KnownFaceAnalyses; startedAt: number };

/**
 * `faces`: the face analyses the session's earlier checks made, by image hash; a reply's `faces` are the ones
 * its task made (src/checks/engines/face-analysis-memo.ts). Both absent outside a session's run.
 */
export type CheckTaskMessage = { id: number; kind: CheckTaskKind; input: unknown; faces?: KnownFaceAnalyses };
export type CheckTaskReply = { id: number; ok: true; output: unknown; faces?: KnownFaceAnalyses } | { id: number; ok: false; error: string };

/**
 * Structured clone turns a Buffer into a plain Uint8Array; engines expect Buffers. Walks the message and
 * turns every Uint8Array back into a Buffer over the same memory (no copy).
 */
export function reviveBuffers<T>(value: T): T {
  if (value instanceof Uint8Array) return (Buffer.isBuffer(value) ? value : Buffer.from(value.buffer, value.byteOffset, value.byteLength)) as T;
  if (Array.isArray(value)) return value.map(reviveBuffers) as T;
  if (value && typeof value === 'object' && !(value instanceof Date)) {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) out[k] = reviveBuffers(v);
    return out as T;
  }
  return value;
}
