import { systemClock, type Clock } from '../clock';
import { generateKeyPairSync, randomBytes, type JsonWebKey } from 'node:crypto';
import type { CrlFetcher } from './crl-check';
import type { StatusListCwtFetcher } from './mdoc-status';
import type { DataSource } from 'typeorm';
import { FlowEntity, type SessionEntity } from '../../entities';
import { DomainError } from '../errors';
import { randomBase62 } from '../ids';
import type { Logger } from '../logger';
import type { Tier } from '../sessions/tiers';
import type { EvidenceVault } from '../vault/evidence-vault';
import { DigitalIdVerificationError, ERROR_REASONS } from './digital-id.errors';
import { DigitalIdRequestRepository, type DigitalIdChannel, type DigitalIdOutcome, type DigitalIdRequestRow } from './digital-id-request.repository';
import type { DigitalIdTrustStore } from './digital-id-trust.store';
import { decryptEcdhEsJwe, JweError } from './ecdh-es-jwe';
import { crossDeviceRequestObject, dcApiRequest, openid4vpLink, SELF_ISSUED_AUDIENCE, signedDcApiRequestObject, unsignedRequestJwt, type CrossDeviceRequestInput, type DcApiProtocol } from './openid4vp-request';
import { documentClaimsOf } from './requested-claims';
import type { VerifierSigningKey } from '../crypto/verifier-signing-key';
import { ISO_MDOC_PROTOCOL } from './dc-api-protocol';
import type { VerifiedAnswer } from './wallet-answer.verifier';
import type { DigitalIdTrust } from './digital-id-trust.store';

/**
 * The wallet formats' libraries (mdoc and CBOR, HPKE, SD-JWT VC, X.509 paths and CRLs), loaded on a server's first
 * digital-ID request rather than at its start, where they were some 100 ms of CPU (docs/benchmarks.md, "Server start-up").
 */
const isoMdocDcApi = () => import('./iso-mdoc-dc-api.js');
const walletAnswers = () => import('./wallet-answer.verifier.js');
const sessionTranscripts = () => import('./session-transcript.js');

/** How long a request may be answered: a person opening a wallet and consenting, with room to spare. */
const REQUEST_TTL_MS = 10 * 60_000;
/** The longest encrypted answer taken (either channel): a presentation with its portrait, with room to spare. */
const MAX_ANSWER_CHARS = 4_000_000;
const KEY_CONTEXT = (requestId: string) => `digital-id-request:${requestId}`;

export interface DigitalIdRequestView {
  readonly id: string;
  readonly expires_at: string;
  /** Same device: the preferred request, the first of `dc_api_requests`. */
  readonly dc_api: { protocol: DcApiProtocol | typeof ISO_MDOC_PROTOCOL; data: Record<string, unknown> };
  /**
   * Same device: pass to `navigator.credentials.get({ digital: { requests: dc_api_requests } })`; the wallet
   * takes one. OpenID4VP first (signed, then unsigned), then ISO 18013-7 Annex C (`org-iso-mdoc`, mdocs only).
   */
  readonly dc_api_requests: ReadonlyArray<{ protocol: DcApiProtocol | typeof ISO_MDOC_PROTOCOL; data: Record<string, unknown> }>;
  /** How the requests are signed: the client identifier prefix of the verifier certificate, or `unsigned` (no verifier key configured). */
  readonly request_signing: 'x509_san_dns' | 'x509_hash' | 'unsigned';
  /** Other device: the `openid4vp://` link for a QR code, and the request it points at. */
  readonly cross_device: { link: string; request_uri: string };
}

export interface DigitalIdStatusView {
  readonly request_id: string;
  readonly status: DigitalIdRequestRow['status'];
  /** The failed step, when the answer was refused (`status` failed or error). */
  readonly reason: string | null;
}

/**
 * The digital-ID step of the hosted flow (D24, docs/digital-ids.md): builds the OpenID4VP request for a
 * session (a fresh nonce and response-encryption key per request), takes the wallet's answer on either
 * channel, verifies it and keeps the result: the presentation (only the requested elements) and the
 * credential portrait in the vault, and on the request row what was verified or the step that failed.
 * The session's `digital_id` check reads that row when the checks run.
 */
export class DigitalIdService {
  readonly requests: DigitalIdRequestRepository;

  constructor(
    private readonly db: DataSource,
    private readonly vault: EvidenceVault,
    private readonly trust: DigitalIdTrustStore,
    private readonly publicBaseUrl: string,
    private readonly logger: Logger,
    private readonly fetchStatusList: (uri: string) => Promise<string>,
    private readonly fetchCrl: CrlFetcher,
    private readonly fetchStatusListCwt: StatusListCwtFetcher,
    /** Signs the requests (docs/digital-ids.md, "Signed requests"); null: requests are unsigned. */
    private readonly signingKey: VerifierSigningKey | null = null,
    private readonly now: Clock = systemClock,
  ) {
    this.requests = new DigitalIdRequestRepository(db);
  }

  async createRequest(s: SessionEntity): Promise<DigitalIdRequestView> {
    const flow = await this.db.getRepository(FlowEntity).findOneBy({ id: s.flowId });
    if (!flow?.digitalIdEnabled) throw new DomainError('invalid_request', 'This verification does not offer digital IDs');
    if (tierNumber(s.tier as Tier) < 1) throw new DomainError('invalid_request', `A ${s.tier} session has no document step`);
    if (s.status !== 'in_progress') throw new DomainError('invalid_state', 'Start the session before asking for a digital ID');

    const id = `dreq_${randomBase62(24)}`;
    const at = this.now();
    const expiresAt = new Date(at.getTime() + REQUEST_TTL_MS);
    const nonce = randomBytes(24).toString('base64url');
    const state = randomBytes(16).toString('base64url');
    const tier = tierNumber(s.tier as Tier);
    const key = generateKeyPairSync('ec', { namedCurve: 'prime256v1' });
    const { clientId, requestUri, responseUri } = this.endpoints(id);
    const origin = this.origin();
    // What the wallet is told is kept with the request and its answer verified against it (docs/digital-ids.md, "Signed requests").
    const publicJwk = publicJwkOf(key.publicKey.export({ format: 'jwk' }), id);
    const requestObject = this.crossDeviceRequestJwt({ tier, nonce, state, clientId, responseUri, encryptionJwk: publicJwk }, at, expiresAt);
    await this.requests.insert({
      id,
      sessionId: s.id,
      nonce,
      state,
      encryptionKeySealed: await this.vault.seal(s.tenantId, KEY_CONTEXT(id), key.privateKey.export({ format: 'jwk' })),
      createdAt: at,
      expiresAt,
      binding: { clientId, responseUri, expectedOrigin: origin, requestObject },
    });
    const unsigned = dcApiRequest({ tier, nonce });
    // Annex C for wallets that speak only ISO (Safari and Apple Wallet): the same nonce and key as the OpenID4VP requests.
    const iso = (await isoMdocDcApi()).isoMdocDcApiRequest({ tier, nonce: Buffer.from(nonce, 'base64url'), recipient: publicJwk });
    // Signed first: a wallet that can check it names the verifier to the person; one that cannot takes the unsigned.
    const dcApiRequests = this.signingKey
      ? [{ protocol: 'openid4vp-v1-signed' as const, data: { request: this.signingKey.signRequestObject(signedDcApiRequestObject({ tier, nonce, clientId: this.signingKey.clientId, origin, issuedAt: at, expiresAt })) } }, unsigned, iso]
      : [unsigned, iso];
    return {
      id,
      expires_at: expiresAt.toISOString(),
      dc_api: dcApiRequests[0],
      dc_api_requests: dcApiRequests,
      request_signing: this.signingKey?.clientIdPrefix ?? 'unsigned',
      cross_device: { link: openid4vpLink(clientId, requestUri), request_uri: requestUri },
    };
  }

  /**
   * The request object a wallet fetches by reference (`request_uri`); only while the request is open. It is
   * the one made with the request, signed by the verifier key of that time, so a key changed since does not
   * make the wallet see another client identifier than the link's.
   */
  async requestObject(id: string): Promise<string> {
    const row = await this.openRequest(id);
    if (row.binding) return row.binding.requestObject;
    // A request from before the request object was kept: built now, under the configuration of now.
    const { clientId, responseUri } = this.endpoints(id);
    const input = { tier: tierNumber(row.tier as Tier), nonce: row.nonce, state: row.state, clientId, responseUri, encryptionJwk: await this.publicKey(row) };
    return this.crossDeviceRequestJwt(input, this.now(), row.expiresAt);
  }

  /** The cross-device request object as a JWT: signed under `x509_san_dns:`/`x509_hash:`, `alg: none` under `redirect_uri:`. */
  private crossDeviceRequestJwt(input: CrossDeviceRequestInput, issuedAt: Date, expiresAt: Date): string {
    const requestObject = crossDeviceRequestObject(input);
    if (!this.signingKey) return unsignedRequestJwt(requestObject);
    const iat = Math.floor(issuedAt.getTime() / 1000);
    return this.signingKey.signRequestObject({ ...requestObject, aud: SELF_ISSUED_AUDIENCE, iat, exp: Math.floor(expiresAt.getTime() / 1000) });
  }

  /** Cross device: the wallet's `direct_post.jwt` answer at the response endpoint. */
  async acceptDirectPost(id: string, response: unknown): Promise<DigitalIdStatusView> {
    const row = await this.openRequest(id);
    if (typeof response !== 'string' || response.length === 0 || response.length > MAX_ANSWER_CHARS) {
      throw new DomainError('invalid_request', 'response must be the encrypted authorization response (a compact JWE)');
    }
    // Unsealed once: the private half decrypts, the public half's thumbprint is in the transcript.
    const privateJwk = await this.privateKey(row);
    let payload: { vp_token?: unknown; state?: unknown };
    try {
      payload = JSON.parse(decryptEcdhEsJwe(response, privateJwk).toString('utf8'));
    } catch (err) {
      if (err instanceof JweError || err instanceof SyntaxError) throw new DomainError('invalid_request', 'The response does not decrypt to a JSON authorization response for this request');
      throw err;
    }
    if (payload.state !== row.state) throw new DomainError('invalid_request', 'The response answers another request (state)');
    const { clientId, responseUri } = this.boundTo(row);
    const [{ jwkThumbprint }, { verifyWalletAnswer }] = await Promise.all([sessionTranscripts(), walletAnswers()]);
    const channel = { kind: 'cross_device' as const, clientId, responseUri, encryptionJwkThumbprint: jwkThumbprint(publicJwkOf(privateJwk, row.id)) };
    return this.answer(row, 'cross_device', (trust, now) => verifyWalletAnswer({ ...this.verifyingWith(row, trust, now), vpToken: payload.vp_token, nonce: row.nonce, channel }));
  }

  /** Same device: what `navigator.credentials.get` resolved with, sent by the hosted page of the session. */
  async acceptDcApi(s: SessionEntity, id: string, body: unknown): Promise<DigitalIdStatusView> {
    const answer = (body ?? {}) as { protocol?: unknown; data?: unknown };
    const protocols: readonly string[] = ['openid4vp-v1-signed', 'openid4vp-v1-unsigned', ISO_MDOC_PROTOCOL];
    if (typeof answer.protocol !== 'string' || !protocols.includes(answer.protocol) || !answer.data || typeof answer.data !== 'object') {
      throw new DomainError('invalid_request', `The answer must be the ${protocols.join(', ')} response of the Digital Credentials API`);
    }
    const row = await this.openRequest(id);
    if (row.sessionId !== s.id) throw new DomainError('not_found', 'No such digital ID request');
    const bound = this.boundTo(row);
    // The signed request is offered only when the request was made with a verifier key.
    if (answer.protocol === 'openid4vp-v1-signed' && !bound.signed) {
      throw new DomainError('invalid_request', 'This request was not signed: the answer must be the openid4vp-v1-unsigned or org-iso-mdoc response of the Digital Credentials API');
    }
    if (answer.protocol === ISO_MDOC_PROTOCOL) return this.acceptIsoMdoc(row, bound.origin, (answer.data as { response?: unknown }).response);
    // Signed or not, OpenID4VP 1.0 A.4 binds a DC API answer to the page's origin, not to the client_id.
    const vpToken = (answer.data as { vp_token?: unknown }).vp_token;
    const channel = { kind: 'dc_api' as const, origin: bound.origin };
    const { verifyWalletAnswer } = await walletAnswers();
    return this.answer(row, 'dc_api', (trust, now) => verifyWalletAnswer({ ...this.verifyingWith(row, trust, now), vpToken, nonce: row.nonce, channel }));
  }

  /**
   * Annex C: the sealed DeviceResponse opens only under this request's key and the transcript of its
   * EncryptionInfo and the page's origin; one that does not open is refused like a JWE that does not
   * decrypt (400, nothing claimed), and the DeviceAuth signature is checked over the same transcript.
   */
  private async acceptIsoMdoc(row: DigitalIdRequestRow, origin: string, response: unknown): Promise<DigitalIdStatusView> {
    if (typeof response !== 'string' || response.length === 0 || response.length > MAX_ANSWER_CHARS) {
      throw new DomainError('invalid_request', 'data.response must be the Annex C EncryptedResponse (base64url CBOR)');
    }
    // Unsealed once: the public half is in the EncryptionInfo the transcript hashes, the private half opens the seal.
    const privateJwk = await this.privateKey(row);
    const [{ isoMdocEncryptionInfo, isoMdocSessionTranscript, IsoMdocResponseError, openIsoMdocResponse }, { wrapSessionTranscript }, { verifyIsoMdocAnswer }] = await Promise.all([
      isoMdocDcApi(),
      sessionTranscripts(),
      walletAnswers(),
    ]);
    const encryptionInfo = isoMdocEncryptionInfo(Buffer.from(row.nonce, 'base64url'), privateJwk);
    const transcript = isoMdocSessionTranscript(encryptionInfo, origin);
    let deviceResponse: Uint8Array;
    try {
      deviceResponse = await openIsoMdocResponse(response, privateJwk, transcript);
    } catch (err) {
      if (err instanceof IsoMdocResponseError) throw new DomainError('invalid_request', 'The response does not decrypt to a DeviceResponse for this request');
      throw err;
    }
    const sessionTranscriptBytes = wrapSessionTranscript(transcript);
    return this.answer(row, 'dc_api', (trust, now) => verifyIsoMdocAnswer({ ...this.verifyingWith(row, trust, now), deviceResponse, sessionTranscriptBytes }));
  }

  /** What every answer is verified with: the request's tier, this mode's trust, the time, the fetchers. */
  private verifyingWith(row: DigitalIdRequestRow, trust: DigitalIdTrust, now: Date) {
    return { tier: tierNumber(row.tier as Tier), trust, now, fetchStatusList: this.fetchStatusList, fetchCrl: this.fetchCrl, fetchStatusListCwt: this.fetchStatusListCwt };
  }

  private origin(): string {
    return new URL(this.publicBaseUrl).origin;
  }

  async status(sessionId: string): Promise<DigitalIdStatusView | null> {
    const row = await this.requests.latest(sessionId);
    return row ? statusView(row) : null;
  }

  private async answer(row: DigitalIdRequestRow, channelKind: DigitalIdChannel, verify: (trust: DigitalIdTrust, now: Date) => Promise<VerifiedAnswer>): Promise<DigitalIdStatusView> {
    const at = this.now();
    if (!(await this.requests.claim(row.id, channelKind, at))) throw new DomainError('invalid_state', 'This digital ID request was already answered or has expired');
    let verified: VerifiedAnswer;
    try {
      verified = await verify(await this.trust.trustFor(row.livemode ? 'live' : 'test'), at);
    } catch (err) {
      if (!(err instanceof DigitalIdVerificationError)) {
        this.logger.error({ err, requestId: row.id }, 'digital ID verification failed unexpectedly');
        await this.requests.settle(row.id, 'error', { reason: 'verification_failed', detail: 'the service could not complete the verification' }, this.now());
        return statusView((await this.requests.find(row.id))!);
      }
      await this.requests.settle(row.id, ERROR_REASONS.has(err.reason) ? 'error' : 'failed', { reason: err.reason, detail: err.detail }, this.now());
      this.logger.info({ requestId: row.id, sessionId: row.sessionId, reason: err.reason }, 'digital ID refused');
      return statusView((await this.requests.find(row.id))!);
    }
    await this.keep(row, verified);
    const outcome: DigitalIdOutcome = {
      format: verified.result.format,
      credential_type: verified.result.credentialType,
      issuer: verified.result.issuer.name,
      issuer_country: verified.result.issuer.country,
      verified: [...verified.result.verified],
    };
    await this.requests.settle(row.id, 'verified', outcome, this.now());
    this.logger.info({ requestId: row.id, sessionId: row.sessionId, format: outcome.format }, 'digital ID verified');
    return statusView((await this.requests.find(row.id))!);
  }

  /**
   * The vault keeps the presentation as the wallet sent it (it discloses only what was asked: anything
   * more was refused) with what was verified, and the credential's portrait as the session's document
   * image for the face match.
   */
  private async keep(row: DigitalIdRequestRow, verified: VerifiedAnswer): Promise<void> {
    const session = { id: row.sessionId, tenantId: row.tenantId, livemode: row.livemode };
    const claims = documentClaimsOf(verified.profileId, verified.result.claims);
    const record = {
      request_id: row.id,
      format: verified.result.format,
      credential_type: verified.result.credentialType,
      issuer: verified.result.issuer,
      verified: verified.result.verified,
      claims: Object.fromEntries(Object.entries(claims).map(([k, v]) => [k, v instanceof Uint8Array ? { base64: Buffer.from(v).toString('base64') } : v])),
      presentation: verified.presentation,
    };
    const details = { request_id: row.id, source: 'digital_id' };
    await this.vault.putDerived({ session, class: 'digital_id_presentation', bytes: Buffer.from(JSON.stringify(record)), contentType: 'application/json', details, openStatuses: ['in_progress'] });
    const portrait = portraitImage(claims.portrait);
    if (portrait) {
      await this.vault.putDerived({ session, class: 'id_document_image', ...portrait, details: { ...details, side: 'digital_id_portrait' }, openStatuses: ['in_progress'] });
    }
  }

  private async openRequest(id: string): Promise<DigitalIdRequestRow> {
    const row = /^dreq_[0-9A-Za-z]{24}$/.test(id) ? await this.requests.find(id) : null;
    if (!row) throw new DomainError('not_found', 'No such digital ID request');
    if (row.status !== 'pending' || row.expiresAt.getTime() <= this.now().getTime()) {
      throw new DomainError('invalid_state', 'This digital ID request was already answered or has expired');
    }
    return row;
  }

  private async publicKey(row: DigitalIdRequestRow): Promise<JsonWebKey & { kid: string }> {
    return publicJwkOf(await this.privateKey(row), row.id);
  }

  /** The request's response-encryption key, unsealed from the vault. */
  private privateKey(row: DigitalIdRequestRow): Promise<JsonWebKey> {
    return this.vault.unseal<JsonWebKey>(row.tenantId, KEY_CONTEXT(row.id), row.encryptionKeySealed);
  }

  /**
   * What the answer is verified against: what the request told the wallet, kept on its row; for a row from
   * before that was kept, the configuration of now (as then: a key changed meanwhile fails its answer).
   */
  private boundTo(row: DigitalIdRequestRow): { clientId: string; responseUri: string; origin: string; signed: boolean } {
    if (row.binding) {
      const { clientId, responseUri, expectedOrigin } = row.binding;
      // redirect_uri: is the prefix of an unsigned request (it forbids signing); the others were signed.
      return { clientId, responseUri, origin: expectedOrigin, signed: !clientId.startsWith('redirect_uri:') };
    }
    return { ...this.endpoints(row.id), origin: this.origin(), signed: this.signingKey !== null };
  }

  private endpoints(id: string): { clientId: string; requestUri: string; responseUri: string } {
    const responseUri = `${this.publicBaseUrl}/v1/digital-id/responses/${id}`;
    // With a verifier key the client identifier is its certificate's; without, the response URI itself.
    const clientId = this.signingKey?.clientId ?? `redirect_uri:${responseUri}`;
    return { clientId, requestUri: `${this.publicBaseUrl}/v1/digital-id/requests/${id}`, responseUri };
  }
}

/** The public half of the session's response-encryption key, as the request object's `jwks` names it (kid: the request id). */
function publicJwkOf(jwk: JsonWebKey, requestId: string): JsonWebKey & { kid: string } {
  return { kty: jwk.kty, crv: jwk.crv, x: jwk.x, y: jwk.y, kid: requestId };
}

function statusView(row: DigitalIdRequestRow): DigitalIdStatusView {
  const reason = row.status === 'failed' || row.status === 'error' ? ((row.outcome as { reason?: string } | null)?.reason ?? null) : null;
  return { request_id: row.id, status: row.status, reason };
}

/** T1..T5 by number; D24's claims differ at T3 (nationality). */
export function tierNumber(tier: Tier): number {
  return Number(tier.slice(1));
}

/** The portrait as an image the face matcher reads: JPEG or PNG bytes, or a data URL of one. */
function portraitImage(value: unknown): { bytes: Buffer; contentType: string } | null {
  let bytes: Buffer | null = null;
  if (value instanceof Uint8Array) bytes = Buffer.from(value);
  else if (typeof value === 'string') {
    const match = /^data:image\/(?:jpeg|png);base64,([A-Za-z0-9+/=]+)$/.exec(value);
    bytes = match ? Buffer.from(match[1], 'base64') : null;
  }
  if (!bytes || bytes.length < 8) return null;
  if (bytes[0] === 0xff && bytes[1] === 0xd8 && bytes[2] === 0xff) return { bytes, contentType: 'image/jpeg' };
  if (bytes.subarray(0, 4).equals(Buffer.from([0x89, 0x50, 0x4e, 0x47]))) return { bytes, contentType: 'image/png' };
  return null;
}
