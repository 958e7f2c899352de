/** The hosted API as the page uses it: the credential lives in this module's memory only. */
export type Challenge = { id: string; issued_at: number; steps: { action: 'turn_left' | 'turn_right' | 'look_up' | 'smile'; nonce: string; opens_at: number; closes_at: number }[] };

export type View = {
  session_id: string;
  status: string;
  tier: string;
  livemode: boolean;
  locale: string;
  steps: string[];
  branding: { display_name: string; logo_url: string | null; primary_color: string };
  redirect_url: string | null;
  allowed_origins: string[];
  captured: { id_document_image: number; selfie_image: number; selfie_video: number };
  challenge: Challenge | null;
  submitted: boolean;
  server_time: number;
  /** D24: whether this page offers "Use a digital ID", and how the latest request fared. */
  digital_id: { offered: boolean; latest: DigitalIdStatus | null };
  /** A test session's outcome as it stands; null for a live session. */
  test_outcome: TestOutcome | null;
};

export type TestOutcome = 'approved' | 'declined' | 'review';

export type DigitalIdStatus = { request_id: string; status: 'pending' | 'verified' | 'failed' | 'error'; reason: string | null };
export type DigitalIdRequest = {
  id: string;
  expires_at: string;
  dc_api: { protocol: string; data: Record<string, unknown> };
  dc_api_requests?: Array<{ protocol: string; data: Record<string, unknown> }>;
  request_signing?: 'x509_san_dns' | 'x509_hash' | 'unsigned';
  cross_device: { link: string; request_uri: string; qr_svg: string };
};

export type FieldProblem = { field: string; code: string; message: string };

export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly fields: FieldProblem[] = [],
  ) {
    super(message);
  }
}

/** How long a credential must still be valid to be handed to the keep form (the account pages check it a moment later). */
const KEEP_MARGIN_MS = 2 * 60 * 1000;

export class HostedApi {
  private credential = '';
  private credentialExpiresAt = 0;
  /** server clock minus this device's clock, so challenge windows are met whatever the device says. */
  clockOffset = 0;

  constructor(
    private readonly sessionId: string,
    private readonly token: string,
  ) {}

  private base(): string {
    return `/v1/hosted/sessions/${encodeURIComponent(this.sessionId)}`;
  }

  async open(): Promise<View> {
    const r = await fetch(`${this.base()}/credentials`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ token: this.token }) });
    const body = await this.parse<{ credential: string; expires_at: string; session: View }>(r);
    this.credential = body.credential;
    this.credentialExpiresAt = Date.parse(body.expires_at);
    this.clockOffset = body.session.server_time - Date.now();
    return body.session;
  }

  private async parse<T>(r: Response): Promise<T> {
    const body = (await r.json().catch(() => ({}))) as { error?: { code: string; message: string; fields?: FieldProblem[] } };
    if (!r.ok) throw new ApiError(r.status, body.error?.code ?? 'error', body.error?.message ?? r.statusText, body.error?.fields ?? []);
    return body as T;
  }

  private async call<T>(method: string, action: string, init: RequestInit = {}): Promise<T> {
    const send = () => fetch(`${this.base()}${action}`, { ...init, method, headers: { ...(init.headers as Record<string, string>), authorization: `Bearer ${this.credential}` } });
    let r = await send();
    if (r.status === 401) {
      await this.open(); // the credential lasts an hour; the token re-opens it
      r = await send();
    }
    return this.parse<T>(r);
  }

  view = () => this.call<View>('GET', '');
  start = () => this.call<View>('POST', '/start');
  challenge = () => this.call<Challenge>('POST', '/challenge');
  /** Submits; the answer of the submit that won carries the keep secret, kept for the keep form (this tab only). */
  submit = async (): Promise<View> => {
    const body = await this.call<View & { keep_secret?: string }>('POST', '/submit');
    if (body.keep_secret) this.rememberKeepSecret(body.keep_secret);
    return body;
  };
  /** A test session only (D22): the outcome it will resolve as; the first choice's answer carries the keep secret, as a submit's does. */
  chooseTestOutcome = async (outcome: TestOutcome): Promise<View> => {
    const body = await this.call<View & { keep_secret?: string }>('POST', '/test-outcome', json({ outcome }));
    if (body.keep_secret) this.rememberKeepSecret(body.keep_secret);
    return body;
  };
  cancel = () => this.call<View>('POST', '/cancel');
  decline = () => this.call<View>('POST', '/decline');
  saveBusiness = (details: Record<string, string>) => this.call<Record<string, string>>('PUT', '/business', json(details));
  confirmIdentity = (identity: Record<string, string>) => this.call<{ confirmed: true }>('PUT', '/identity', json(identity));
  appHandoff = async (): Promise<{ link: string; qr_svg: string }> => {
    const body = await this.call<{ link: string; qr_svg: string; keep_secret?: string }>('POST', '/app-handoff');
    if (body.keep_secret) this.rememberKeepSecret(body.keep_secret);
    return body;
  };
  digitalIdRequest = () => this.call<DigitalIdRequest>('POST', '/digital-id/requests');
  /** The same device's wallet answer, as navigator.credentials.get resolved it. */
  digitalIdAnswer = (requestId: string, answer: { protocol: string; data: unknown }) =>
    this.call<DigitalIdStatus>('POST', `/digital-id/requests/${encodeURIComponent(requestId)}/response`, json(answer));
  handoffSvg = async (): Promise<string> => {
    const r = await fetch(`${this.base()}/handoff.svg`, { headers: { authorization: `Bearer ${this.credential}` } });
    if (!r.ok) throw new ApiError(r.status, 'error', 'QR code unavailable');
    return r.text();
  };

  upload(query: Record<string, string | number>, blob: Blob): Promise<{ id: string }> {
    const qs = new URLSearchParams(Object.entries(query).map(([k, v]) => [k, String(v)]));
    return this.call('POST', `/artifacts?${qs.toString()}`, { body: blob, headers: { 'content-type': blob.type } });
  }

  /**
   * The credential, for the one form that carries it: "Keep this verification in your account"
   * posts it to the service's own account pages (same origin) as proof that it comes from this
   * page. Null when it is about to expire: `renew` first.
   */
  credentialForKeep(): string | null {
    return this.credentialExpiresAt - this.now() > KEEP_MARGIN_MS ? this.credential : null;
  }

  renew = async (): Promise<void> => void (await this.open());

  private keepSecretValue = '';
  private readonly keepSecretKey = () => `keep_secret:${this.sessionId}`;

  /** Held in memory and in this tab's sessionStorage (a reload of the last page keeps it); where storage is blocked, memory only. */
  private rememberKeepSecret(secret: string): void {
    this.keepSecretValue = secret;
    try {
      sessionStorage.setItem(this.keepSecretKey(), secret);
    } catch {
      // storage blocked (some third-party iframes): memory is enough for this page's life
    }
  }

  /** The keep secret this browser was given when it submitted the captures; null in any other browser. */
  keepSecret(): string | null {
    if (this.keepSecretValue) return this.keepSecretValue;
    try {
      return sessionStorage.getItem(this.keepSecretKey());
    } catch {
      return null;
    }
  }

  /** Server time now, by this device's clock and the measured offset. */
  now(): number {
    return Date.now() + this.clockOffset;
  }
}

const json = (body: unknown): RequestInit => ({ body: JSON.stringify(body), headers: { 'content-type': 'application/json' } });
