import { toBase64 } from './bytes';
import { ChipReaderError } from './errors';
import type { PassportFiles } from './reader';

/** What the hosted page's app handoff gives the app (docs/hosted-flow.md, "Mobile-app handoff (T5)"). */
export type Handoff = { sessionId: string; clientSecret: string };

/**
 * Reads `session_id` and `client_secret` from the handoff deep link: query of a custom scheme
 * (`idverify://chip?session_id=...`) or fragment of an https universal link (`...#session_id=...`).
 */
export function parseHandoffLink(link: string): Handoff {
  const at = link.search(/[?#]/);
  const params = new Map<string, string>();
  for (const pair of (at < 0 ? '' : link.slice(at + 1)).split(/[&#?]/)) {
    const eq = pair.indexOf('=');
    if (eq > 0) params.set(decodeURIComponent(pair.slice(0, eq)), decodeURIComponent(pair.slice(eq + 1).replace(/\+/g, ' ')));
  }
  const sessionId = params.get('session_id');
  const clientSecret = params.get('client_secret');
  if (!sessionId || !clientSecret) throw new ChipReaderError('upload_failed', 'the handoff link has no session_id and client_secret');
  return { sessionId, clientSecret };
}

export type UploadOptions = Handoff & {
  /** The service's API origin, e.g. https://verify.example.com */
  apiBaseUrl: string;
  fetch?: typeof fetch;
  onProgress?: (progress: { file: string; bytes: number }) => void;
};

/**
 * Sends what was read to `POST /v1/verify/sessions/{id}/chip` with the handoff's client secret:
 * EF.SOD and the data groups read (never DG3/DG4, which the reader does not read). Returns the
 * session as the route answers it.
 */
export async function uploadChipFiles(files: Pick<PassportFiles, 'sod' | 'dataGroups'>, options: UploadOptions): Promise<any> {
  const groups: Record<string, string> = {};
  for (const [n, bytes] of files.dataGroups) {
    if (n === 3 || n === 4) continue;
    groups[String(n)] = toBase64(bytes);
    options.onProgress?.({ file: `DG${n}`, bytes: bytes.length });
  }
  options.onProgress?.({ file: 'EF.SOD', bytes: files.sod.length });
  const doFetch = options.fetch ?? fetch;
  const url = `${options.apiBaseUrl.replace(/\/$/, '')}/v1/verify/sessions/${encodeURIComponent(options.sessionId)}/chip`;
  let response: Response;
  try {
    response = await doFetch(url, {
      method: 'POST',
      headers: { authorization: `Bearer ${options.clientSecret}`, 'content-type': 'application/json' },
      body: JSON.stringify({ sod: toBase64(files.sod), data_groups: groups }),
    });
  } catch (e) {
    throw new ChipReaderError('upload_failed', `the service could not be reached: ${(e as Error).message}`);
  }
  const body: any = await response.json().catch(() => undefined);
  if (!response.ok) {
    throw new ChipReaderError('upload_failed', `the service refused the chip data: ${response.status} ${body?.error?.code ?? ''}`.trim(), { httpStatus: response.status, body });
  }
  return body;
}
