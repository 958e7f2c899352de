import { createHash, createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import type Provider from 'oidc-provider';
import type { ClientMetadata } from 'oidc-provider';
import { SecretBox } from '../crypto/secret-box';
import { systemClock, type Clock } from '../clock';

/** The service's own account pages as a client of its provider: not a tenant, never in `oidc_clients`. */
export const FIRST_PARTY_CLIENT_ID = 'service-account-pages';
export const ACCOUNT_PAGES_PATH = '/account';
export const FIRST_PARTY_CALLBACK_PATH = `${ACCOUNT_PAGES_PATH}/callback`;
/** From leaving an account page for the sign-in pages to coming back (the flow cookie's life). */
export const SIGN_IN_FLOW_TTL_SECONDS = 15 * 60;
/** How long the account pages know who signed in, without asking again. */
export const ACCOUNT_SESSION_TTL_SECONDS = 10 * 60;
/** Clocks of several instances may differ this much when the sign-in's time is compared with the flow's start. */
const CLOCK_LEEWAY_SECONDS = 30;

/** The tenant staff's console (web/console, docs/console.md): a first-party client like the account pages. */
export const CONSOLE_CLIENT_ID = 'service-console';
export const CONSOLE_PATH = '/console';
export const CONSOLE_CALLBACK_PATH = `${CONSOLE_PATH}/callback`;
export const FIRST_PARTY_CLIENT_IDS: readonly string[] = [FIRST_PARTY_CLIENT_ID, CONSOLE_CLIENT_ID];

/** Which first-party client a FirstPartySignIn signs in for: its id, its callback, and the label its cookie and form keys derive from. */
export type FirstPartyClientSpec = { clientId: string; callbackPath: string; keyLabel: string };
export const ACCOUNT_PAGES_CLIENT: FirstPartyClientSpec = { clientId: FIRST_PARTY_CLIENT_ID, callbackPath: FIRST_PARTY_CALLBACK_PATH, keyLabel: 'account-pages' };
export const CONSOLE_CLIENT: FirstPartyClientSpec = { clientId: CONSOLE_CLIENT_ID, callbackPath: CONSOLE_CALLBACK_PATH, keyLabel: 'console' };

/** The subject the account portal's tokens name: its own, never a tenant's pairwise one. */
export const portalSubjectOf = (box: SecretBox, userId: string): string => box.hmac(`first-party-subject:${userId}`);

/**
 * The first-party client (the account portal), registered with the provider at start (`clients` of
 * src/oidc/oidc-provider.ts). `clientSecret`: ACCOUNT_PORTAL_CLIENT_SECRET when the portal's backend
 * runs apart and redeems its codes at the token endpoint (a /v1 token with `data_rights`, D20).
 */
export function firstPartyClient(publicBaseUrl: string, box: SecretBox, clientSecret?: string): ClientMetadata {
  return {
    client_id: FIRST_PARTY_CLIENT_ID,
    // Unset, no one outside this process knows the secret: the in-process account pages redeem their
    // codes themselves (FirstPartySignIn.complete), and the token endpoint stays closed to this client.
    client_secret: clientSecret ?? box.hmac('first-party-client-secret'),
    client_name: 'Identity account',
    redirect_uris: [`${publicBaseUrl}${FIRST_PARTY_CALLBACK_PATH}`],
    grant_types: ['authorization_code'],
    response_types: ['code'],
    token_endpoint_auth_method: 'client_secret_basic',
    id_token_signed_response_alg: 'ES256',
  };
}

/** The console as a client of the provider: codes redeemed in process only (its secret is derived and never shown). */
export function consoleClient(publicBaseUrl: string, box: SecretBox): ClientMetadata {
  return {
    client_id: CONSOLE_CLIENT_ID,
    client_secret: box.hmac('console-client-secret'),
    client_name: 'Console',
    redirect_uris: [`${publicBaseUrl}${CONSOLE_CALLBACK_PATH}`],
    grant_types: ['authorization_code'],
    response_types: ['code'],
    token_endpoint_auth_method: 'client_secret_basic',
    id_token_signed_response_alg: 'ES256',
  };
}

/** Where a sign-in started, sealed in the flow cookie: nothing of it is readable by a page script or in a URL. */
type FlowState = { p: 'flow'; state: string; verifier: string; returnTo: string; keep: string | null; uiLocales: string | null; at: number };
/**
 * Who signed in, sealed in the account cookie. `sid` is this sign-in's own id, which form tokens are
 * bound to; `auth`: when the person entered their password (the code's auth_time, seconds), which
 * the account portal's export and erasure need to be recent (D20).
 */
type AccountState = { p: 'account'; uid: string; sid: string; exp: number; auth?: number };

/** `authTime`: seconds since the epoch of the sign-in; null for a cookie sealed before it was recorded. */
export type SignedIn = { userId: string; sid: string; authTime: number | null };
export type SignInRefusal = 'sign_in_expired' | 'sign_in_cancelled' | 'sign_in_failed';
/** `uiLocales`: the language the sign-in began in, for the page that follows it. */
export type CompletedSignIn = { userId: string; returnTo: string; keep: string | null; uiLocales: string | null; accountCookie: string };

/**
 * The account pages (web/accounts/account.router.ts) as a first-party relying party of the service's
 * own OpenID Provider (docs/accounts-and-oidc.md, "The account pages"): authorization code with PKCE
 * S256, `state` and `prompt=login` (a fresh sign-in on the provider's own pages); the code is redeemed
 * here, through the provider's own models, with the checks the token endpoint makes (client,
 * redirect URI, expiry, single use, PKCE), and nothing is issued: no token exists to leak or revoke.
 * Then a sealed cookie names the user for ACCOUNT_SESSION_TTL_SECONDS.
 */
export class FirstPartySignIn {
  private readonly box: SecretBox;
  private readonly csrfKey: Buffer;
  private readonly issuer: string;
  private readonly redirectUri: string;

  constructor(
    private readonly provider: Provider,
    userDataBox: SecretBox,
    publicBaseUrl: string,
    private readonly now: Clock = systemClock,
    private readonly client: FirstPartyClientSpec = ACCOUNT_PAGES_CLIENT,
  ) {
    // Keys of their own, derived from the user-data key: every instance agrees, no other use shares them.
    this.box = SecretBox.fromKey(Buffer.from(userDataBox.hmac(`${client.keyLabel}-cookie-key`), 'hex'));
    this.csrfKey = Buffer.from(userDataBox.hmac(`${client.keyLabel}-form-key`), 'hex');
    this.issuer = provider.issuer;
    this.redirectUri = `${publicBaseUrl}${client.callbackPath}`;
  }

  /**
   * Starts a sign-in that ends at `returnTo` (a path of the account pages). `keep` names a session
   * to keep in the account once signed in (web/accounts/keep.router.ts): it travels sealed in the
   * flow cookie, so only this browser's sign-in can complete it.
   */
  begin(o: { returnTo: string; uiLocales?: string; keep?: string; maxAge?: number }): { authorizationUrl: string; flowCookie: string } {
    const state = randomBytes(32).toString('base64url');
    const verifier = randomBytes(32).toString('base64url');
    const params = new URLSearchParams({
      client_id: this.client.clientId,
      response_type: 'code',
      scope: 'openid',
      redirect_uri: this.redirectUri,
      state,
      code_challenge: challengeOf(verifier),
      code_challenge_method: 'S256',
      // Every account page acts on something that matters (a verification, a data request): sign in now, as whom you choose.
      prompt: 'login',
      // The portal's re-authentication for export and erasure says how recent the sign-in must be (OIDC max_age).
      ...(o.maxAge !== undefined ? { max_age: String(o.maxAge) } : {}),
      ...(o.uiLocales ? { ui_locales: o.uiLocales } : {}),
    });
    const flow: FlowState = { p: 'flow', state, verifier, returnTo: o.returnTo, keep: o.keep ?? null, uiLocales: o.uiLocales ?? null, at: this.now().getTime() };
    return { authorizationUrl: `${this.issuer}/auth?${params.toString()}`, flowCookie: this.box.seal(JSON.stringify(flow)) };
  }

  /** The provider sent the browser back to the callback: checks `state`, redeems the code, and names the user. */
  async complete(flowCookie: string | undefined, query: Record<string, unknown>): Promise<CompletedSignIn | { refused: SignInRefusal }> {
    const flow = this.open<FlowState>(flowCookie, 'flow');
    const now = this.now().getTime();
    if (!flow || flow.at + SIGN_IN_FLOW_TTL_SECONDS * 1000 < now || !equal(query.state, flow.state)) return { refused: 'sign_in_expired' };
    if (query.error !== undefined) return { refused: 'sign_in_cancelled' };
    if (query.iss !== undefined && query.iss !== this.issuer) return { refused: 'sign_in_failed' };
    const code = typeof query.code === 'string' && query.code.length <= 200 ? await this.provider.AuthorizationCode.find(query.code) : undefined;
    if (
      !code ||
      !code.isValid ||
      code.clientId !== this.client.clientId ||
      code.redirectUri !== this.redirectUri ||
      code.codeChallengeMethod !== 'S256' ||
      !equal(code.codeChallenge, challengeOf(flow.verifier)) ||
      // prompt=login: the sign-in happened during this flow, not earlier.
      typeof code.authTime !== 'number' ||
      code.authTime < Math.floor(flow.at / 1000) - CLOCK_LEEWAY_SECONDS ||
      typeof code.accountId !== 'string'
    )
      return { refused: 'sign_in_failed' };
    await code.consume();
    // Nothing is issued under this grant: end it, so the account pages leave no grant behind (nor in the user's export).
    if (code.grantId) await (await this.provider.Grant.find(code.grantId))?.destroy();
    const account: AccountState = { p: 'account', uid: code.accountId, sid: randomBytes(16).toString('base64url'), exp: now + ACCOUNT_SESSION_TTL_SECONDS * 1000, auth: code.authTime };
    return { userId: code.accountId, returnTo: flow.returnTo, keep: flow.keep, uiLocales: flow.uiLocales ?? null, accountCookie: this.box.seal(JSON.stringify(account)) };
  }

  /** The user the account cookie names while it lasts; null for none, an expired, altered or foreign value. */
  signedIn(accountCookie: string | undefined): SignedIn | null {
    const account = this.open<AccountState>(accountCookie, 'account');
    if (!account || account.exp <= this.now().getTime() || typeof account.uid !== 'string') return null;
    return { userId: account.uid, sid: account.sid, authTime: typeof account.auth === 'number' ? account.auth : null };
  }

  /** A form's anti-forgery token: bound to this sign-in and to what the form does (e.g. `dsr:<id>`). */
  formToken(who: SignedIn, purpose: string): string {
    return createHmac('sha256', this.csrfKey).update(`${who.sid}:${purpose}`).digest('base64url');
  }

  checkFormToken(who: SignedIn, purpose: string, given: unknown): boolean {
    return equal(given, this.formToken(who, purpose));
  }

  private open<T extends { p: string }>(sealed: string | undefined, purpose: T['p']): T | null {
    if (!sealed || sealed.length > 4096) return null;
    try {
      const value = JSON.parse(this.box.open(sealed)) as T;
      return value && value.p === purpose ? value : null;
    } catch {
      return null; // altered, or sealed under another key
    }
  }
}

const challengeOf = (verifier: string): string => createHash('sha256').update(verifier).digest('base64url');

/** Constant-time equality of two strings (through their hashes, so lengths do not show either). */
function equal(given: unknown, expected: unknown): boolean {
  if (typeof given !== 'string' || typeof expected !== 'string') return false;
  return timingSafeEqual(createHash('sha256').update(given).digest(), createHash('sha256').update(expected).digest());
}
