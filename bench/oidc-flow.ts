/**
 * A browser's side of the sign-in interaction over plain HTTP (cookies in and out, redirects by
 * hand), shared by bench/oidc.bench.ts and test/helpers/oidc-login.ts. It only posts the public
 * pages' forms: there is no other way to a token.
 */

/** Cookies as a browser keeps them for one host (paths ignored: the server reads cookies by name). */
export class CookieJar {
  private readonly cookies = new Map<string, string>();

  store(res: Response): void {
    for (const line of res.headers.getSetCookie()) {
      const [pair, ...attrs] = line.split(';');
      const eq = pair.indexOf('=');
      const name = pair.slice(0, eq).trim();
      const expired = attrs.some((a) => /^\s*expires=/i.test(a) && new Date(a.split('=')[1]).getTime() < Date.now()) || attrs.some((a) => /^\s*max-age=0/i.test(a));
      if (expired) this.cookies.delete(name);
      else this.cookies.set(name, pair.slice(eq + 1).trim());
    }
  }

  header(): string {
    return [...this.cookies].map(([k, v]) => `${k}=${v}`).join('; ');
  }
}

export type Hop = { status: number; url: string; location: string | null; html: string };

/** One request as a browser makes it (cookies in and out, no redirect followed). */
export async function browse(jar: CookieJar, url: string, form?: Record<string, string>, headers: Record<string, string> = {}): Promise<Hop> {
  const res = await fetch(url, {
    method: form ? 'POST' : 'GET',
    redirect: 'manual',
    headers: { cookie: jar.header(), ...(form ? { 'content-type': 'application/x-www-form-urlencoded' } : {}), ...headers },
    body: form ? new URLSearchParams(form).toString() : undefined,
  });
  jar.store(res);
  const location = res.headers.get('location');
  return { status: res.status, url, location: location ? new URL(location, url).href : null, html: await res.text() };
}

/** Follows redirects on the server until a page (2xx/4xx) or a redirect that leaves for `stopAt`. */
export async function follow(jar: CookieJar, hop: Hop, stopAt: string): Promise<Hop> {
  let current = hop;
  for (let i = 0; i < 10 && current.location && !current.location.startsWith(stopAt); i++) current = await browse(jar, current.location);
  return current;
}

/** The absolute action URL of the page's (first) form. */
export function formAction(hop: Hop): string {
  const m = /<form[^>]*action="([^"]+)"/.exec(hop.html);
  if (!m) throw new Error(`no form on ${hop.url}`);
  return new URL(m[1].replace(/&amp;/g, '&'), hop.url).href;
}

/** From the authorization URL to the redirect back to the app: signs in and consents; returns that redirect URL. */
export async function passInteraction(jar: CookieJar, authorizationUrl: string, redirectUri: string, email: string, password: string): Promise<string> {
  let hop = await follow(jar, await browse(jar, authorizationUrl), redirectUri);
  for (let i = 0; i < 4 && !(hop.location ?? '').startsWith(redirectUri); i++) {
    if (hop.html.includes('name="password"')) hop = await browse(jar, formAction(hop), { email, password });
    else if (hop.html.includes('/consent"')) hop = await browse(jar, formAction(hop), {});
    else throw new Error(`unexpected page during sign-in (${hop.status} ${hop.url}):\n${hop.html.slice(0, 600)}`);
    hop = await follow(jar, hop, redirectUri);
  }
  if (!hop.location?.startsWith(redirectUri)) throw new Error(`sign-in did not return to the app: ${hop.status} ${hop.html.slice(0, 300)}`);
  return hop.location;
}
