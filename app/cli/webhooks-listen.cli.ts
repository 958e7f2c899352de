import { randomBytes } from 'node:crypto';
import type { Client } from 'graphql-ws';
import { SIGNATURE_HEADER, signatureHeader } from '../../src/webhooks/webhook.signer';

/**
 * `webhooks listen` (D23; docs/webhooks.md, "On your own machine"): the developer's machine opens
 * the connection, never the service. It follows the `webhookEvents` subscription with a test key,
 * signs each event's body with a listen secret made here (the D7 scheme, so the receiver's usual
 * verification code runs unchanged), POSTs it to the local URL and prints one line per event.
 */
export const WEBHOOKS_LISTEN_USAGE = `  webhooks listen --api-key sk_test_... --forward-to <url> [--base-url <url>]
                                              stream the tenant's test-mode webhook events to a URL on
                                              this machine, signed with a listen secret printed at start
                                              (--base-url: the service, default http://localhost:$PORT or 4000)`;

export type ListenOptions = { apiKey: string; forwardTo: string; baseUrl: string; out?: (line: string) => void; err?: (line: string) => void };

const SUBSCRIPTION = 'subscription WebhooksListen { webhookEvents { id type body } }';
/** A receiver that does not answer within this long is reported as a timeout, and the next event goes on. */
const FORWARD_TIMEOUT_MS = 10_000;

type Streamed = { id: string; type: string; body: string };

export class ListenUsageError extends Error {}

/** Checks the options before any connection: a live key or a bad URL is refused with a clear message. */
export function checkListenOptions(o: { apiKey?: string; forwardTo?: string; baseUrl?: string }): { apiKey: string; forwardTo: string; baseUrl: string } {
  if (!o.apiKey) throw new ListenUsageError('--api-key is required (a sk_test_ key)');
  if (o.apiKey.startsWith('sk_live_')) throw new ListenUsageError('webhooks listen is for test mode only: use a sk_test_ key. Live events go to the webhook endpoints you register (docs/webhooks.md).');
  if (!o.apiKey.startsWith('sk_test_')) throw new ListenUsageError('--api-key must be a sk_test_ key');
  if (!o.forwardTo) throw new ListenUsageError('--forward-to is required (e.g. http://localhost:3000/hook)');
  const baseUrl = o.baseUrl ?? `http://localhost:${process.env.PORT && process.env.PORT !== '0' ? process.env.PORT : '4000'}`;
  for (const [name, value] of [['--forward-to', o.forwardTo], ['--base-url', baseUrl]] as const) {
    let url: URL;
    try {
      url = new URL(value);
    } catch {
      throw new ListenUsageError(`${name} must be an http(s) URL`);
    }
    if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new ListenUsageError(`${name} must be an http(s) URL`);
  }
  return { apiKey: o.apiKey, forwardTo: o.forwardTo, baseUrl: baseUrl.replace(/\/+$/, '') };
}

/**
 * Runs until SIGINT/SIGTERM or until the service refuses the subscription (exit 1). Reconnects
 * (graphql-ws's own retries) when the connection drops; events committed while disconnected are
 * not replayed: use the webhook replay of a registered endpoint for those.
 */
export async function webhooksListen(o: ListenOptions): Promise<number> {
  const out = o.out ?? ((line: string) => process.stdout.write(`${line}\n`));
  const err = o.err ?? ((line: string) => process.stderr.write(`${line}\n`));
  const secret = `whsec_listen_${randomBytes(24).toString('base64url')}`;
  const wsUrl = `${o.baseUrl.replace(/^http/, 'ws')}/graphql`;
  // Loaded here, not at the top: every CLI command loads this file (for its usage), one of them listens.
  const [{ createClient }, { default: WebSocket }] = await Promise.all([import('graphql-ws'), import('ws')]);
  const client: Client = createClient({
    url: wsUrl,
    webSocketImpl: WebSocket,
    connectionParams: { authorization: `Bearer ${o.apiKey}` },
    retryAttempts: 5,
    // 4403: the key is wrong, revoked or lacks sessions:read; retrying changes nothing.
    shouldRetry: (e) => !(e && typeof e === 'object' && 'code' in e && (e as { code: number }).code === 4403),
  });
  out(`Ready. Listen secret (verify the Service-Signature with it): ${secret}`);
  out(`Forwarding test-mode events from ${o.baseUrl} to ${o.forwardTo}`);
  // One at a time, in the order received: a receiver sees them as a registered endpoint would, one request each.
  let chain = Promise.resolve();
  const forward = (e: Streamed) => (chain = chain.then(() => forwardOne(e, o.forwardTo, secret, out)));
  const code = await new Promise<number>((resolve) => {
    const stop = () => resolve(0);
    process.once('SIGINT', stop);
    process.once('SIGTERM', stop);
    client.subscribe<{ webhookEvents: Streamed }>(
      { query: SUBSCRIPTION },
      {
        next: (result) => {
          if (result.errors?.length) {
            err(`Refused: ${result.errors.map((x) => x.message).join('; ')}`);
            resolve(1);
            return;
          }
          if (result.data?.webhookEvents) forward(result.data.webhookEvents);
        },
        error: (e) => {
          err(`Connection to ${wsUrl} failed: ${describe(e)}`);
          resolve(1);
        },
        complete: () => resolve(0),
      },
    );
  });
  await chain;
  await client.dispose();
  return code;
}

async function forwardOne(e: Streamed, url: string, secret: string, out: (line: string) => void): Promise<void> {
  const started = performance.now();
  const t = Math.floor(Date.now() / 1000);
  let status: string;
  try {
    const res = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'user-agent': 'identity-verification-webhooks-listen', [SIGNATURE_HEADER]: signatureHeader([secret], t, e.body), 'Service-Event-Id': e.id },
      body: e.body,
      redirect: 'manual',
      signal: AbortSignal.timeout(FORWARD_TIMEOUT_MS),
    });
    await res.arrayBuffer().catch(() => undefined);
    status = String(res.status);
  } catch (x) {
    status = x instanceof Error && x.name === 'TimeoutError' ? 'timeout' : 'error';
  }
  out(`${new Date().toISOString()}  ${e.type}  ${e.id}  ${status}  ${Math.round(performance.now() - started)} ms`);
}

function describe(e: unknown): string {
  if (e instanceof Error) return e.message;
  if (e && typeof e === 'object' && 'code' in e) {
    const c = e as { code: number; reason?: string };
    return c.code === 4403 ? 'the key was refused (wrong, revoked, or without sessions:read)' : `closed with ${c.code}${c.reason ? ` ${c.reason}` : ''}`;
  }
  return String(e);
}
