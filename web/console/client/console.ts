// The console's one script (docs/console.md, "Second factor"): runs the WebAuthn ceremonies of the
// passkey buttons with @simplewebauthn/browser. Without it the page still offers codes.
import { browserSupportsWebAuthn, startAuthentication, startRegistration } from '@simplewebauthn/browser';

async function post(url: string, token: string, body?: unknown): Promise<Response> {
  return fetch(url, {
    method: 'POST',
    credentials: 'same-origin',
    headers: { 'x-form-token': token, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
}

function wire(box: HTMLElement): void {
  const button = box.querySelector('button');
  const error = box.querySelector<HTMLElement>('.passkey__error');
  const noScript = box.querySelector<HTMLElement>('.passkey__no-script');
  if (!button || !error || !browserSupportsWebAuthn()) return;
  if (noScript) noScript.hidden = true;
  button.hidden = false;
  const { passkey: mode, url = '', formToken = '', return: returnTo = '/console' } = box.dataset;
  button.addEventListener('click', () => {
    void (async () => {
      error.hidden = true;
      button.disabled = true;
      try {
        const options = await post(`${url}/options`, formToken);
        if (!options.ok) throw new Error(`options ${options.status}`);
        const optionsJSON = await options.json();
        const response = mode === 'register' ? await startRegistration({ optionsJSON }) : await startAuthentication({ optionsJSON });
        const verified = await post(url, formToken, { response, return: returnTo });
        if (!verified.ok) throw new Error(`verify ${verified.status}`);
        const { redirect } = (await verified.json()) as { redirect: string };
        window.location.assign(redirect);
      } catch {
        error.textContent = error.dataset.message ?? '';
        error.hidden = false;
        button.disabled = false;
      }
    })();
  });
}

document.querySelectorAll<HTMLElement>('[data-passkey]').forEach(wire);
