import type { Client } from 'openapi-fetch';
import { errorFromResponse } from './errors';
import type { paths } from './generated/openapi';

/** The openapi-fetch client over the generated paths: every call is checked against openapi.yaml at compile time. */
export type Api = Client<paths>;

type Answer<T> = { data?: T; error?: unknown; response: Response };

/** The body of a successful answer, or the typed error (IdvApiError, IdvRateLimitError) of any other. */
export async function unwrap<T>(call: Promise<Answer<T>>): Promise<T> {
  const { data, error, response } = await call;
  if (!response.ok) throw errorFromResponse(response, error);
  return data as T;
}
