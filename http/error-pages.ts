import type { Request, Response } from 'express';
import { ErrorCode, HTTP_STATUS, isErrorCode } from '../src/errors';
import { sendError } from './error-response';
import { escapeHtml } from './html';
import { setPageSecurityHeaders } from './security-headers';

/** One human-readable page per error code; problem documents link here in their `type`. */
const DESCRIPTIONS: Record<ErrorCode, string> = {
  invalid_request: 'The request was malformed or broke a rule of the API. The message says which field and why. Fix the request before retrying.',
  too_many_records: 'A bulk import holds at most 10,000 records. The body was read up to record 10,001, whose line the message names, and nothing was imported: split the file and send each part on its own.',
  tier_not_available: 'The requested verification tier is not offered yet (T6, government records, is deferred). Request T0 to T5.',
  data_group_not_allowed: 'A chip submission included data group 3 (fingerprints) or 4 (iris images). The service never collects them: send EF.SOD, DG1, DG2 and the other data groups only. Passive Authentication does not need the groups left out.',
  unauthorized: 'The Authorization header is missing, malformed, or names a key that does not exist or was revoked. Send `Authorization: Bearer sk_test_...` or `sk_live_...`.',
  user_token_required: 'This endpoint acts for an end user and needs their own OpenID Connect access token. Tenant API keys are refused here by design.',
  insufficient_scope: 'The key or user token is valid but lacks the scope this operation needs (for example sessions:review for the manual-review override, or account for GET /v1/me). Whole-account rights (export, erasure, restriction) need data_rights, which only the service\'s own account portal is granted.',
  reauthentication_required: 'Exporting or deleting an account needs a sign-in within the last 10 minutes. Sign in again at the account portal (the authorization request carries max_age=600), then retry.',
  not_regulated: 'Only tenants an operator marked as regulated may extend one session\'s ID-document retention beyond the tenant policy. Ask support if your obligations require it.',
  not_found: 'Nothing exists at this address for this credential. Sessions of other tenants, and test sessions read with live keys (or the reverse), are reported as not found.',
  link_invalid: 'A signed link (an evidence URL) was altered or has expired. Evidence URLs are valid for 15 minutes: read the session again with your API key for fresh ones.',
  gone: 'What this link pointed to was deleted for good, for example evidence purged under the retention policy. It cannot be restored.',
  invalid_state: 'The session is not in a status that allows this operation, for example a manual review of a session that is not in manual_review.',
  user_restricted: 'The end user has restricted processing of their data. Only storage and data-rights fulfilment continue.',
  payload_too_large: 'Request bodies are at most 1 MiB (bulk import: 25 MiB; hosted-flow uploads: images 10 MiB, videos 25 MiB).',
  unsupported_media_type: 'Request bodies must be JSON, sent with Content-Type: application/json. Hosted-flow uploads must be JPEG, PNG or WebP images (or WebM/MP4 liveness video), and the bytes must really be the declared type.',
  audio_not_allowed: 'A hosted-flow video upload has an audio track. Liveness videos are recorded without sound: the service never collects voice. Record video only (for example MediaRecorder with a stream that has no audio track).',
  upload_too_slow: 'A hosted-flow upload arrived more slowly than 16 KiB/s on average after its first 10 seconds, or stopped: it was cut so that it does not hold an upload slot. Send the file again on a better connection.',
  rate_limited: 'The rate-limit bucket of this endpoint is exhausted for this key. Wait for the number of seconds in the Retry-After header, then retry with exponential back-off and full jitter.',
  internal_error: 'Something failed on our side. The request id in the response helps us find it; retrying later is safe for reads.',
  upstream_unreachable: 'The gateway could not reach the upstream behind /v1/social, /v1/profiles or /v1/network (connection refused or reset). Retrying later is safe for reads.',
  upstream_not_configured: 'This service has no upstream for /v1/social, /v1/profiles and /v1/network (SOCIAL_UPSTREAM_URL is not set).',
  upstream_timeout: 'The upstream behind /v1/social, /v1/profiles or /v1/network did not start its answer within 10 seconds.',
};

export function errorPage(req: Request, res: Response): void {
  const code = req.params.code;
  if (!isErrorCode(code)) return sendError(res, 'not_found', 'No such error code');
  setPageSecurityHeaders(res);
  res.type('html').send(`<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${code}</title>
<meta name="viewport" content="width=device-width, initial-scale=1"></head>
<body style="font-family: system-ui, sans-serif; max-width: 40rem; margin: 3rem auto; padding: 0 1rem">
<h1><code>${code}</code></h1><p>HTTP status ${HTTP_STATUS[code]}</p><p>${escapeHtml(DESCRIPTIONS[code])}</p>
</body></html>`);
}
