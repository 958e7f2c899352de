import type { Api } from './api';
import { unwrap } from './api';
import type { operations } from './generated/openapi';
import type { CreatedSession, CreateSessionRequest, DecisionRequest, Session, SessionDecision, SessionList } from './types';

/** `limit` (1-100), `after` (a page's `next_cursor`), and the `status` / `reference_id` filters. */
export type ListSessionsParams = NonNullable<operations['listSessions']['parameters']['query']>;

/** /v1/verify/sessions: create (either request shape of D1), read, list, cancel, and the decision history. */
export class Sessions {
  constructor(private readonly api: Api) {}

  /**
   * Creates a session. Give the definition shape (`flow_id`, `tier`, `reference_id`) or the quickstart shape
   * (`tiers`, `reference`; the tenant's default flow). Only this answer carries `hosted_url` and `client_secret`.
   */
  create(body: CreateSessionRequest): Promise<CreatedSession> {
    return unwrap(this.api.POST('/v1/verify/sessions', { body }));
  }

  /** One session of this key's tenant and mode; any other id is an IdvApiError with code `not_found`. */
  get(id: string): Promise<Session> {
    return unwrap(this.api.GET('/v1/verify/sessions/{id}', { params: { path: { id } } }));
  }

  /** One page of the key's sessions, newest first; pass `next_cursor` back as `after` for the next. */
  list(params: ListSessionsParams = {}): Promise<SessionList> {
    return unwrap(this.api.GET('/v1/verify/sessions', { params: { query: params } }));
  }

  /** Every session that matches, newest first, fetching page after page as the loop asks for more. */
  async *listAll(params: Omit<ListSessionsParams, 'after'> = {}): AsyncGenerator<Session> {
    let after: string | undefined;
    do {
      const page = await this.list({ ...params, ...(after ? { after } : {}) });
      yield* page.data;
      after = page.next_cursor ?? undefined;
    } while (after);
  }

  /** Withdraws a session that has not reached a terminal status; a terminal one is `invalid_state` (409). */
  cancel(id: string): Promise<Session> {
    return unwrap(this.api.POST('/v1/verify/sessions/{id}/cancel', { params: { path: { id } } }));
  }

  /** The decision history, oldest first: the pipeline's, then each person's (scope `sessions:read`). */
  async listDecisions(id: string): Promise<SessionDecision[]> {
    const list = await unwrap(this.api.GET('/v1/verify/sessions/{id}/decisions', { params: { path: { id } } }));
    return list.data;
  }

  /**
   * A person's decision (scope `sessions:review`): `approve` / `decline` a session in `manual_review`, or `reverse`
   * a decided one within 90 days. Another state is `invalid_state` (409), also when another reviewer decided first.
   */
  decide(id: string, body: DecisionRequest): Promise<SessionDecision> {
    return unwrap(this.api.POST('/v1/verify/sessions/{id}/decisions', { params: { path: { id } }, body }));
  }

  /** Regulated tenants: keep this session's ID documents `id_document_years` (1-10); others get `not_regulated` (403). */
  extendRetention(id: string, body: { id_document_years: number; reason: string }) {
    return unwrap(this.api.POST('/v1/verify/sessions/{id}/retention', { params: { path: { id } }, body }));
  }
}
