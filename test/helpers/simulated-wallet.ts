import { createHash, createPrivateKey, generateKeyPairSync, randomBytes, sign, type JsonWebKey } from 'node:crypto';
import { deflateSync } from 'node:zlib';
import { cborDecode, cborEncode, DataItem, DateOnly, DeviceRequest, DeviceResponse, Document, IssuerSignedDocument, MDoc } from '@animo-id/mdoc';
import { createHeaderAndPayload, StatusList } from '@sd-jwt/jwt-status-list';
import { SDJwtVcInstance } from '@sd-jwt/sd-jwt-vc';
import { Aes128Gcm, CipherSuite, DhkemP256HkdfSha256, HkdfSha256 } from '@hpke/core';
import { packageImage } from '../../bench/checks/face-images';
import { encryptEcdhEsJwe } from '../../src/digital-id/ecdh-es-jwe';
import { nodeMdocContext } from '../../src/digital-id/node-mdoc-context';
import { CREDENTIAL_PROFILES, type CredentialProfile, type DocumentClaim } from '../../src/digital-id/requested-claims';
import { jwkThumbprint, sessionTranscriptBytes, type TranscriptChannel } from '../../src/digital-id/session-transcript';
import { freshCertificateAuthority, issueSigner, projectTestIaca, type CertificateAuthority, type IssuerCredentials } from './test-pki';
import { checkRequestObject, RequestRefused } from './wallet-request-check';

/**
 * A wallet for tests: it holds an mDL and an EU PID (mdoc and SD-JWT VC) issued under the project's test
 * IACA with its own device key, and answers an OpenID4VP request as a wallet does on either channel.
 * Told to misbehave, it produces exactly one fault, so a test can assert each is refused with its reason.
 * Built on @animo-id/mdoc and @sd-jwt/sd-jwt-vc: no CBOR or COSE by hand.
 */

export type Misbehaviour =
  | 'tampered_element'
  | 'wrong_nonce'
  | 'expired'
  | 'untrusted_issuer'
  | 'other_transcript'
  | 'revoked'
  | 'element_not_requested';

export const MISBEHAVIOURS: readonly Misbehaviour[] = ['tampered_element', 'wrong_nonce', 'expired', 'untrusted_issuer', 'other_transcript', 'revoked', 'element_not_requested'];

export interface WalletPerson {
  readonly family_name: string;
  readonly given_name: string;
  readonly birth_date: string;
  readonly portrait: Uint8Array;
  readonly document_number: string;
  readonly expiry_date: string;
  readonly issuing_country: string;
  readonly nationality: string;
  /** Held in the credential and never asked for (no tier requests it): a test can look for it where nothing may keep it. */
  readonly resident_address?: string;
}

/** The specimen holder the digital-ID tests issue credentials to (portrait: a photo of the person the selfies show). */
export const SPECIMEN_PERSON: WalletPerson = {
  family_name: 'Mustermann',
  given_name: 'Erika',
  birth_date: '1984-08-12',
  portrait: packageImage('franck_02221.jpg').bytes,
  document_number: 'T22000129',
  expiry_date: '2031-01-01',
  issuing_country: 'UT',
  nationality: 'DE',
};

/** What the request told the wallet, read from the request object or the DC API request data. */
export interface WalletRequest {
  readonly nonce: string;
  readonly dcql_query: { credentials: Array<{ id: string; format: string; claims: Array<{ path: Array<string> }> }> };
  readonly client_id?: string;
  readonly response_uri?: string;
  readonly state?: string;
  readonly client_metadata?: { jwks?: { keys: Array<JsonWebKey & { kid?: string }> } };
}

export type WalletChannel = { kind: 'dc_api'; origin: string } | { kind: 'cross_device' };

export interface AnswerOptions {
  readonly credential: CredentialProfile['id'];
  readonly misbehave?: Misbehaviour;
}

/** Where the "revoked" credential's status list lives, and the token to serve there. */
export interface StatusListPublication {
  readonly uri: string;
  token: string | null;
  /** The mdoc's list: a Token Status List as CWT (COSE_Sign1), which the revoked mdoc's MSO names (`uri#cwt`). */
  cwt?: Uint8Array | null;
}

export class SimulatedWallet {
  private readonly deviceKey = generateKeyPairSync('ec', { namedCurve: 'prime256v1' });
  private readonly trustedDocumentSigner: IssuerCredentials;
  private readonly trustedPidIssuer: IssuerCredentials;
  private readonly statusListSigner: IssuerCredentials | null;
  private untrusted: { documentSigner: IssuerCredentials; pidIssuer: IssuerCredentials } | null = null;
  /** The verifier roots this wallet trusts for signed requests (PEM): its reader trust list. */
  readonly trustedVerifierRoots: string[] = [];

  constructor(
    readonly person: WalletPerson,
    /** A URI the test serves; the revoked SD-JWT VC points its status here and the wallet fills `token`. */
    readonly statusList: StatusListPublication = { uri: 'https://status.invalid/list/1', token: null },
    /** The CA its issuers chain to: the project's test IACA unless a test trusts another (live mode never trusts that one). */
    iaca: CertificateAuthority = projectTestIaca(),
    /**
     * Issuers of the test's own making (an issuer under an intermediate CA, with CRLs), instead of ones straight
     * under `iaca`; and a status list signer: with one, every credential names a status list entry (set only when
     * told `revoked`), and that certificate signs the list with its chain, not the credential's issuer.
     */
    issuers: { documentSigner?: IssuerCredentials; pidIssuer?: IssuerCredentials; statusListSigner?: IssuerCredentials } = {},
  ) {
    this.trustedDocumentSigner = issuers.documentSigner ?? issueSigner(iaca, 'mdoc_document_signer');
    this.trustedPidIssuer = issuers.pidIssuer ?? issueSigner(iaca, 'sd_jwt_vc_issuer');
    this.statusListSigner = issuers.statusListSigner ?? null;
  }

  /** The SD-JWT VC issuer's certificate (DER), for a test that revokes it. */
  get pidIssuerCertificate(): Uint8Array {
    return this.trustedPidIssuer.certificateDer;
  }

  /** The mdoc document signer's certificate (DER), for a test that revokes it on its IACA's CRL. */
  get documentSignerCertificate(): Uint8Array {
    return this.trustedDocumentSigner.certificateDer;
  }

  /** Same device: the object `navigator.credentials.get` resolves with (`DigitalCredential.data`). */
  async answerDcApi(request: WalletRequest, origin: string, options: AnswerOptions): Promise<{ protocol: string; data: { vp_token: Record<string, string[]> } }> {
    const vpToken = await this.vpToken(request, { kind: 'dc_api', origin }, options);
    return { protocol: 'openid4vp-v1-unsigned', data: { vp_token: vpToken } };
  }

  /**
   * Same device, one entry of `navigator.credentials.get`'s `digital.requests` as a wallet gets it: a signed
   * request (`openid4vp-v1-signed`) is checked first (signature, verifier certificate, client_id binding,
   * `expected_origins`; wallet-request-check.ts) and a failing one refused with RequestRefused; the answer
   * carries the protocol of the request it answers.
   */
  async answerDigitalCredentialRequest(entry: { protocol: string; data: Record<string, unknown> }, origin: string, options: AnswerOptions): Promise<{ protocol: string; data: Record<string, unknown> }> {
    let request: WalletRequest;
    if (entry.protocol === 'org-iso-mdoc') {
      return { protocol: entry.protocol, data: { response: await this.answerIsoMdoc(entry.data, origin, options) } };
    } else if (entry.protocol === 'openid4vp-v1-signed') {
      request = checkRequestObject(String(entry.data.request), { trustedVerifierRoots: this.trustedVerifierRoots, origin }) as unknown as WalletRequest;
    } else if (entry.protocol === 'openid4vp-v1-unsigned') {
      if ('client_id' in entry.data) throw new RequestRefused('unsigned_request_not_allowed', 'an unsigned DC API request names a client_id');
      request = entry.data as unknown as WalletRequest;
    } else {
      throw new RequestRefused('request_malformed', `protocol ${entry.protocol}`);
    }
    const answer = await this.answerDcApi(request, origin, options);
    return { ...answer, protocol: entry.protocol };
  }

  /**
   * Same device, ISO 18013-7 Annex C (`org-iso-mdoc`), as an ISO wallet does it: reads the DeviceRequest
   * and the EncryptionInfo, signs its DeviceResponse over the Annex C transcript of that EncryptionInfo and
   * the page's origin, and seals it with HPKE to the request's key, the transcript as `info`. The
   * transcript is computed here from the standard's text, not with the service's code, so a mistake there
   * is not mirrored. `wrong_nonce` and `other_transcript` sign over another request's EncryptionInfo or
   * another origin (sealed correctly, so the service reaches the device signature).
   */
  async answerIsoMdoc(data: Record<string, unknown>, origin: string, options: AnswerOptions): Promise<string> {
    const profile = CREDENTIAL_PROFILES.find((p) => p.id === options.credential)!;
    if (profile.format !== 'mso_mdoc') throw new RequestRefused('request_malformed', 'org-iso-mdoc asks for mdocs only');
    const deviceRequest = DeviceRequest.parse(Buffer.from(String(data.deviceRequest), 'base64url'));
    const docRequest = deviceRequest.docRequests.find((d) => d.itemsRequest.data.docType === profile.credentialType);
    if (!docRequest) throw new Error(`the request does not ask for ${options.credential}`);
    const asked = [...(docRequest.itemsRequest.data.nameSpaces.get(profile.namespace!)?.keys() ?? [])];
    const disclosed = options.misbehave === 'element_not_requested' ? [...asked, extraElement(profile, asked)] : asked;
    const encryptionInfo = String(data.encryptionInfo);
    const [kind, params] = cborDecode(Buffer.from(encryptionInfo, 'base64url')) as [string, Map<string, unknown>];
    const recipient = params?.get('recipientPublicKey') as Map<number, unknown> | undefined;
    if (kind !== 'dcapi' || !(params?.get('nonce') instanceof Uint8Array) || !(recipient?.get(-2) instanceof Uint8Array)) throw new RequestRefused('request_malformed', 'EncryptionInfo');
    const transcriptOf = (info: string, at: string) => {
      const hash = createHash('sha256').update(cborEncode([info, at])).digest();
      return cborEncode([null, null, ['dcapi', new Uint8Array(hash)]]);
    };
    const otherRequest = () => Buffer.from(cborEncode(['dcapi', new Map<string, unknown>([['nonce', randomBytes(16)], ['recipientPublicKey', recipient]])])).toString('base64url');
    const signedOver =
      options.misbehave === 'wrong_nonce' ? transcriptOf(otherRequest(), origin) : transcriptOf(encryptionInfo, options.misbehave === 'other_transcript' ? 'https://attacker.example' : origin);
    const deviceResponse = Buffer.from(await this.presentMdoc(profile, disclosed, cborEncode(new DataItem({ buffer: signedOver })), options.misbehave), 'base64url');
    const suite = new CipherSuite({ kem: new DhkemP256HkdfSha256(), kdf: new HkdfSha256(), aead: new Aes128Gcm() });
    const jwk = { kty: 'EC', crv: 'P-256', x: Buffer.from(recipient.get(-2) as Uint8Array).toString('base64url'), y: Buffer.from(recipient.get(-3) as Uint8Array).toString('base64url') };
    const recipientPublicKey = await suite.kem.importKey('jwk', jwk, true);
    const info = transcriptOf(encryptionInfo, origin);
    // Copies: a Buffer may be a view into a shared pool.
    const sealed = await suite.seal({ recipientPublicKey, info: new Uint8Array(info).buffer }, new Uint8Array(deviceResponse).buffer);
    return Buffer.from(cborEncode(['dcapi', new Map<string, unknown>([['enc', new Uint8Array(sealed.enc)], ['cipherText', new Uint8Array(sealed.ct)]])])).toString('base64url');
  }

  /** Cross device: the `response` form field of a direct_post.jwt answer, a JWE to the request's key. */
  async answerDirectPostJwt(request: WalletRequest, options: AnswerOptions): Promise<string> {
    const key = request.client_metadata?.jwks?.keys?.[0];
    if (!key) throw new Error('the request carries no encryption key');
    const vpToken = await this.vpToken(request, { kind: 'cross_device' }, options);
    const payload = { vp_token: vpToken, ...(request.state ? { state: request.state } : {}) };
    return encryptEcdhEsJwe(Buffer.from(JSON.stringify(payload)), key, { kid: key.kid });
  }

  /**
   * Scans the QR: fetches the request by reference, answers it and posts the JWE to the response endpoint.
   * `rebase` maps the service's public URLs to where the test server listens.
   */
  async answerOpenid4vpLink(link: string, options: AnswerOptions & { rebase?: (url: string) => string; intercept?: (requestJwt: string) => string }): Promise<Response> {
    return this.answerFetchedRequest(await this.fetchOpenid4vpRequest(link, options), options);
  }

  /** The first half of answering a QR: the request fetched by reference and checked as a wallet does, not yet answered. */
  async fetchOpenid4vpRequest(link: string, options: { rebase?: (url: string) => string; intercept?: (requestJwt: string) => string } = {}): Promise<WalletRequest> {
    const rebase = options.rebase ?? ((url: string) => url);
    const requestUri = new URL(link).searchParams.get('request_uri');
    if (!requestUri) throw new Error('the link has no request_uri');
    const fetched = await fetch(rebase(requestUri));
    if (!fetched.ok) throw new Error(`request_uri answered ${fetched.status}: ${await fetched.text()}`);
    // `intercept` stands for whoever sits between the wallet and the verifier and alters the request.
    const jwt = (options.intercept ?? ((j: string) => j))(await fetched.text());
    const clientIdFromLink = new URL(link).searchParams.get('client_id') ?? '';
    return checkRequestObject(jwt, { trustedVerifierRoots: this.trustedVerifierRoots, clientIdFromLink }) as unknown as WalletRequest;
  }

  /** The second half: the person consented; the answer is posted to the request's response URI. */
  async answerFetchedRequest(request: WalletRequest, options: AnswerOptions & { rebase?: (url: string) => string }): Promise<Response> {
    const rebase = options.rebase ?? ((url: string) => url);
    const response = await this.answerDirectPostJwt(request, options);
    return fetch(rebase(request.response_uri!), { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams({ response }).toString() });
  }

  private async vpToken(request: WalletRequest, channel: WalletChannel, options: AnswerOptions): Promise<Record<string, string[]>> {
    const query = request.dcql_query.credentials.find((c) => c.id === options.credential);
    if (!query) throw new Error(`the request does not ask for ${options.credential}`);
    const profile = CREDENTIAL_PROFILES.find((p) => p.id === options.credential)!;
    const asked = query.claims.map((claim) => claim.path[claim.path.length - 1]);
    const disclosed = options.misbehave === 'element_not_requested' ? [...asked, extraElement(profile, asked)] : asked;
    const nonce = options.misbehave === 'wrong_nonce' ? randomBytes(16).toString('base64url') : request.nonce;
    const presentation =
      profile.format === 'mso_mdoc'
        ? await this.presentMdoc(profile, disclosed, sessionTranscriptBytes(this.transcriptFor(request, channel, nonce, options.misbehave)), options.misbehave)
        : await this.presentSdJwt(profile, disclosed, request, channel, nonce, options.misbehave);
    return { [profile.id]: [presentation] };
  }

  private transcriptFor(request: WalletRequest, channel: WalletChannel, nonce: string, misbehave?: Misbehaviour): TranscriptChannel {
    if (channel.kind === 'dc_api') {
      const origin = misbehave === 'other_transcript' ? 'https://attacker.example' : channel.origin;
      return { kind: 'dc_api', origin, nonce };
    }
    const key = request.client_metadata!.jwks!.keys[0];
    const responseUri = misbehave === 'other_transcript' ? 'https://attacker.example/response' : request.response_uri!;
    return { kind: 'redirect', clientId: request.client_id!, nonce, responseUri, jwkThumbprint: jwkThumbprint(key) };
  }

  private issuerFor(kind: 'mdoc' | 'sd_jwt', misbehave?: Misbehaviour): IssuerCredentials {
    if (misbehave !== 'untrusted_issuer') return kind === 'mdoc' ? this.trustedDocumentSigner : this.trustedPidIssuer;
    if (!this.untrusted) {
      const ca = freshCertificateAuthority();
      this.untrusted = { documentSigner: issueSigner(ca, 'mdoc_document_signer'), pidIssuer: issueSigner(ca, 'sd_jwt_vc_issuer') };
    }
    return kind === 'mdoc' ? this.untrusted.documentSigner : this.untrusted.pidIssuer;
  }

  /** The DeviceResponse (base64url CBOR) with the device's signature over `transcript` (SessionTranscriptBytes). */
  private async presentMdoc(profile: CredentialProfile, disclosed: string[], transcript: Uint8Array, misbehave?: Misbehaviour): Promise<string> {
    const ctx = nodeMdocContext({ now: new Date() });
    const signer = this.issuerFor('mdoc', misbehave);
    const now = new Date();
    const validity =
      misbehave === 'expired'
        ? { signed: new Date(now.getTime() - 1000), validFrom: new Date(now.getTime() - 1000), validUntil: new Date(now.getTime() - 500) }
        : { signed: now, validFrom: now, validUntil: new Date(now.getTime() + 30 * 86_400_000) };
    const values = Object.fromEntries(Object.entries(profile.elements).map(([claim, element]) => [element, this.mdocValue(claim as DocumentClaim)]));
    values.resident_address = this.person.resident_address ?? 'Teststraat 1, Utopia';
    let document = await new Document(profile.credentialType, ctx)
      .addIssuerNameSpace(profile.namespace!, values)
      .useDigestAlgorithm('SHA-256')
      .addValidityInfo(validity)
      .addDeviceKeyInfo({ deviceKey: this.deviceKey.publicKey.export({ format: 'jwk' }) as never })
      .sign({ issuerPrivateKey: signer.privateJwk as never, issuerCertificate: signer.certificateDer, alg: 'ES256' }, ctx);
    if (misbehave === 'revoked' || this.statusListSigner) document = await this.withMsoStatus(document, signer, 3, misbehave === 'revoked', ctx);

    const nameSpaces = new Map([[profile.namespace!, new Map(disclosed.map((element) => [element, true]))]]);
    const deviceRequest = DeviceRequest.from('1.0', [{ itemsRequestData: { docType: profile.credentialType, nameSpaces } }]);
    const signed = await DeviceResponse.from(new MDoc([document]))
      .usingDeviceRequest(deviceRequest)
      .usingSessionTranscriptBytes(transcript)
      .authenticateWithSignature(this.deviceKey.privateKey.export({ format: 'jwk' }) as never, 'ES256')
      .sign(ctx);
    let bytes: Buffer = Buffer.from(signed.encode());
    if (misbehave === 'tampered_element') bytes = replaceOnce(bytes, this.person.family_name, tamper(this.person.family_name));
    return bytes.toString('base64url');
  }

  private async presentSdJwt(profile: CredentialProfile, disclosed: string[], request: WalletRequest, channel: WalletChannel, nonce: string, misbehave?: Misbehaviour): Promise<string> {
    const signer = this.issuerFor('sd_jwt', misbehave);
    const issuerKey = createPrivateKey({ key: signer.privateJwk, format: 'jwk' });
    const holderKey = this.deviceKey.privateKey;
    const es256 = (key: typeof issuerKey) => (data: string) => sign('sha256', Buffer.from(data), { key, dsaEncoding: 'ieee-p1363' }).toString('base64url');
    const sdjwt = new SDJwtVcInstance({
      signer: es256(issuerKey),
      signAlg: 'ES256',
      kbSigner: es256(holderKey),
      kbSignAlg: 'ES256',
      hasher: async (data) => new Uint8Array(createHash('sha256').update(typeof data === 'string' ? data : Buffer.from(data)).digest()),
      saltGenerator: async () => randomBytes(16).toString('base64url'),
    });
    const nowSeconds = Math.floor(Date.now() / 1000);
    const claims = Object.fromEntries(Object.entries(profile.elements).map(([claim, element]) => [element, this.sdJwtValue(claim as DocumentClaim)]));
    claims.resident_address = this.person.resident_address ?? 'Teststraat 1, Utopia';
    const payload: Record<string, unknown> = {
      iss: 'https://wallet-issuer.test.invalid',
      iat: nowSeconds - 60,
      exp: misbehave === 'expired' ? nowSeconds - 120 : nowSeconds + 30 * 86_400,
      vct: profile.credentialType,
      cnf: { jwk: this.deviceKey.publicKey.export({ format: 'jwk' }) },
      ...claims,
    };
    if (misbehave === 'revoked' || this.statusListSigner) {
      payload.status = { status_list: { idx: 3, uri: this.statusList.uri } };
      this.statusList.token = this.statusListToken(this.statusListSigner ?? signer, misbehave === 'revoked' ? 3 : null);
    }
    const x5c = signer.chainDer.map((der) => Buffer.from(der).toString('base64'));
    const credential = await sdjwt.issue(payload as never, { _sd: Object.keys(claims) } as never, { header: { x5c } });

    const audience = channel.kind === 'dc_api' ? (misbehave === 'other_transcript' ? 'origin:https://attacker.example' : `origin:${channel.origin}`) : misbehave === 'other_transcript' ? 'redirect_uri:https://attacker.example/response' : request.client_id!;
    const frame = Object.fromEntries(disclosed.map((element) => [element, true]));
    let presentation = await sdjwt.present(credential, frame as never, { kb: { payload: { iat: nowSeconds, aud: audience, nonce } } });
    if (misbehave === 'tampered_element') presentation = tamperDisclosure(presentation, profile.elements.family_name);
    return presentation;
  }

  /**
   * The document re-signed with an MSO that names a status list entry (ISO/IEC 18013-5 2nd edition, IETF
   * Token Status List: `status: { status_list: { idx, uri } }`), and the list published as a CWT with that
   * entry set (when `revoked`). The library's Document builder has no status, so its MSO is decoded, given one
   * and signed again with the library's own IssuerAuth.
   */
  private async withMsoStatus(document: IssuerSignedDocument, signer: IssuerCredentials, idx: number, revoked: boolean, ctx: ReturnType<typeof nodeMdocContext>): Promise<IssuerSignedDocument> {
    const uri = `${this.statusList.uri}#cwt`;
    const old = document.issuerSigned.issuerAuth;
    const decoded = cborDecode(old.payload) as DataItem<Map<string, unknown>>;
    const mso = new Map(decoded.data);
    mso.set('status', new Map([['status_list', new Map<string, unknown>([['idx', idx], ['uri', uri]])]]));
    const IssuerAuthClass = old.constructor as unknown as { create(p: unknown, u: unknown, payload: Uint8Array): typeof old };
    const issuerAuth = IssuerAuthClass.create(old.protectedHeaders, old.unprotectedHeaders, cborEncode(DataItem.fromData(mso)));
    issuerAuth.signature = await ctx.cose.sign1.sign({ sign1: issuerAuth, jwk: signer.privateJwk as never });
    this.statusList.cwt = this.statusListCwt(this.statusListSigner ?? signer, uri, revoked ? idx : null);
    return new IssuerSignedDocument(document.docType, { issuerAuth, nameSpaces: document.issuerSigned.nameSpaces });
  }

  /** A Token Status List as CWT: 1 bit per entry, `revokedIndex` set (if any), signed by `signer` with its chain in x5chain. */
  private statusListCwt(signer: IssuerCredentials, uri: string, revokedIndex: number | null): Uint8Array {
    const bits = Buffer.alloc(2);
    if (revokedIndex !== null) bits[revokedIndex >> 3] |= 1 << (revokedIndex & 7);
    const claims = new Map<number, unknown>([
      [2, uri],
      [6, Math.floor(Date.now() / 1000)],
      [65533, new Map<string, unknown>([['bits', 1], ['lst', deflateSync(bits)]])],
    ]);
    const Sign1 = (cborDecode(Buffer.from('d28443a10126a104420102420304420506', 'hex')) as object).constructor as unknown as {
      create(p: Map<number, unknown>, u: Map<number, unknown>, payload: Uint8Array): { getRawSigningData(): { data: Uint8Array }; signature: Uint8Array };
    };
    const sign1 = Sign1.create(new Map<number, unknown>([[1, -7], [16, 'application/statuslist+cwt']]), new Map<number, unknown>([[33, signer.chainDer.length === 1 ? signer.chainDer[0] : [...signer.chainDer]]]), cborEncode(claims));
    sign1.signature = sign('sha256', sign1.getRawSigningData().data, { key: createPrivateKey({ key: signer.privateJwk, format: 'jwk' }), dsaEncoding: 'ieee-p1363' });
    return new Uint8Array(cborEncode(sign1));
  }

  /** A Token Status List (1 bit per entry) with `revokedIndex` set (if any), signed by `signer` with its x5c. */
  private statusListToken(signer: IssuerCredentials, revokedIndex: number | null): string {
    const list = new StatusList(Array.from({ length: 16 }, (_, i) => (i === revokedIndex ? 1 : 0)), 1);
    const { header, payload } = createHeaderAndPayload(list, { iss: 'https://wallet-issuer.test.invalid', sub: this.statusList.uri, iat: Math.floor(Date.now() / 1000) }, { alg: 'ES256', typ: 'statuslist+jwt' });
    const encode = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');
    const signingInput = `${encode({ ...header, x5c: signer.chainDer.map((der) => Buffer.from(der).toString('base64')) })}.${encode(payload)}`;
    const signature = sign('sha256', Buffer.from(signingInput), { key: createPrivateKey({ key: signer.privateJwk, format: 'jwk' }), dsaEncoding: 'ieee-p1363' });
    return `${signingInput}.${signature.toString('base64url')}`;
  }

  private mdocValue(claim: DocumentClaim): unknown {
    switch (claim) {
      case 'birth_date':
      case 'expiry_date':
        return new DateOnly(this.person[claim]);
      case 'nationality':
        return this.person.nationality;
      default:
        return this.person[claim];
    }
  }

  private sdJwtValue(claim: DocumentClaim): unknown {
    if (claim === 'portrait') return `data:image/jpeg;base64,${Buffer.from(this.person.portrait).toString('base64')}`;
    if (claim === 'nationality') return [this.person.nationality];
    return this.person[claim];
  }
}

/** An element the wallet holds that no tier asks for. */
function extraElement(_profile: CredentialProfile, asked: string[]): string {
  return asked.includes('resident_address') ? 'nationality' : 'resident_address';
}

function tamper(text: string): string {
  return text.slice(0, -1) + (text.endsWith('x') ? 'y' : 'x');
}

function replaceOnce(bytes: Buffer, from: string, to: string): Buffer {
  const at = bytes.indexOf(Buffer.from(from, 'utf8'));
  if (at < 0) throw new Error('the element to tamper with is not in the response');
  const copy = Buffer.from(bytes);
  Buffer.from(to, 'utf8').copy(copy, at);
  return copy;
}

/** Rewrites the value of one disclosure after issuance: its digest no longer matches the signed payload. */
function tamperDisclosure(presentation: string, element: string): string {
  const parts = presentation.split('~');
  for (let i = 1; i < parts.length - 1; i++) {
    const decoded = JSON.parse(Buffer.from(parts[i], 'base64url').toString('utf8')) as unknown[];
    if (decoded[1] === element) {
      decoded[2] = tamper(String(decoded[2]));
      parts[i] = Buffer.from(JSON.stringify(decoded)).toString('base64url');
      return parts.join('~');
    }
  }
  throw new Error('the element to tamper with was not disclosed');
}
