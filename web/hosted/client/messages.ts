/**
 * The postMessage protocol to the opener (popup) or parent (iframe): each message is posted once
 * per allowed origin with that origin as the explicit target, so only a listener on an allowed
 * origin can ever receive it. Incoming messages from any other origin are ignored.
 */
export type MessageType = 'ready' | 'step' | 'completed' | 'canceled' | 'error';

export function embedder(): Window | null {
  if (window.opener && window.opener !== window) return window.opener as Window;
  if (window.parent && window.parent !== window) return window.parent;
  return null;
}

export function post(origins: string[], msg: { type: MessageType; session_id: string; status: string; step?: string }): void {
  const target = embedder();
  if (!target) return;
  const body = { source: 'identity-verification', version: 1, ...msg, step: msg.step ?? null };
  for (const origin of origins) {
    try {
      target.postMessage(body, origin);
    } catch {}
  }
}

export function listen(origins: string[], onCancel: () => void): void {
  window.addEventListener('message', (e: MessageEvent) => {
    if (!origins.includes(e.origin)) return;
    const d = e.data as { source?: string; type?: string } | null;
    if (d && d.source === 'identity-verification' && d.type === 'cancel') onCancel();
  });
}
