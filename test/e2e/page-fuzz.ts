import { browse, CookieJar, passInteraction } from '../../bench/oidc-flow';

/**
 * The page side of the input fuzz (test/e2e/input-fuzz.test.ts; issue #40 finding 10): the console's,
 * the account portal's and the OpenID Provider's pages, as a signed-in member, a signed-in account
 * holder and a stranger. Their forms are read from the pages themselves (every form a crawl from the
 * start pages finds, with its fields and its form token), so a new form is fuzzed without being listed.
 */

export type PageForm = { action: string; fields: Record<string, string> };
export type PageSurface = { cookie: string; pages: string[]; forms: PageForm[] };

const decode = (s: string) => s.replace(/&amp;/g, '&').replace(/&quot;/g, '"').replace(/&#39;/g, "'").replace(/&lt;/g, '<').replace(/&gt;/g, '>');

/** The forms of a page: action and every named input, select and textarea with its value. */
export function formsOf(html: string, base: string): PageForm[] {
  const out: PageForm[] = [];
  for (const m of html.matchAll(/<form\b([^>]*)>([\s\S]*?)<\/form>/g)) {
    const method = /method="([^"]*)"/i.exec(m[1])?.[1] ?? 'get';
    const action = decode(/action="([^"]*)"/i.exec(m[1])?.[1] ?? new URL(base).pathname);
    if (method.toLowerCase() !== 'post' || !action.startsWith('/')) continue;
    const fields: Record<string, string> = {};
    for (const f of m[2].matchAll(/<(?:input|select|textarea|button)\b([^>]*)>/g)) {
      const name = /name="([^"]*)"/.exec(f[1])?.[1];
      if (name) fields[decode(name)] = decode(/value="([^"]*)"/.exec(f[1])?.[1] ?? 'x');
    }
    out.push({ action, fields });
  }
  return out;
}

/** GET links of a page under `prefix` (never a sign-out). */
function linksOf(html: string, prefix: string): string[] {
  return [...html.matchAll(/href="([^"]+)"/g)].map((m) => decode(m[1])).filter((h) => h.startsWith(prefix) && !/sign-out|\.css|\.js|\/evidence\//.test(h));
}

/** Pages reachable from `start` with `jar`, up to `max`, and all their forms. */
export async function crawl(base: string, jar: CookieJar, start: string[], prefix: string, max = 40): Promise<PageSurface> {
  const seen = new Set<string>();
  const queue = [...start];
  const forms = new Map<string, PageForm>();
  while (queue.length && seen.size < max) {
    const p = queue.shift()!;
    if (seen.has(p)) continue;
    seen.add(p);
    const hop = await browse(jar, `${base}${p}`);
    if (hop.status !== 200) continue;
    for (const f of formsOf(hop.html, hop.url)) forms.set(`${f.action} ${Object.keys(f.fields).sort().join(',')}`, f);
    for (const l of linksOf(hop.html, prefix)) if (!seen.has(l)) queue.push(l);
  }
  return { cookie: jar.header(), pages: [...seen], forms: [...forms.values()] };
}

/** A portal sign-in through the provider's pages: the jar then holds the account pages' cookie. */
export async function portalJar(base: string, email: string, password: string): Promise<CookieJar> {
  const jar = new CookieJar();
  const hop = await browse(jar, `${base}/account`);
  if (!hop.location) throw new Error(`the portal did not ask for a sign-in: ${hop.status}`);
  const back = await passInteraction(jar, hop.location, `${base}/account/callback`, email, password);
  const callback = await browse(jar, back);
  if (callback.location) await browse(jar, callback.location);
  return jar;
}

/** Page paths with a parameter in them, for ids and tokens the fuzz makes up (`:x` is replaced). */
export const PAGE_PATHS_WITH_IDS = [
  'GET /console/assets/:x',
  'GET /console/cases/:x',
  'POST /console/cases/:x/decisions',
  'GET /console/evidence/:x',
  'GET /console/invitations/:x',
  'POST /console/invitations/:x/accept',
  'POST /console/members/:x/remove',
  'POST /console/members/:x/role',
  'GET /console/settings/webhooks/:x',
  'POST /console/settings/keys/:x/revoke',
  'POST /console/second-factor/passkey',
  'POST /console/second-factor/totp',
  'POST /console/second-factor/recovery',
  'POST /console/tenants',
  'GET /console/queue?after=:x',
  'GET /console/queue?status=:x&flow=:x&q=:x',
  'GET /console/sign-in?return=:x',
  'GET /console/callback?code=:x&state=:x',
  'GET /account/requests/:x?token=:x',
  'POST /account/requests/:x/confirm',
  'POST /account/requests/:x/decline',
  'GET /account/keep/:x?lang=:x',
  'POST /account/keep',
  'POST /account/apps/revoke',
  'GET /account/verifications/:x/review',
  'POST /account/verifications/:x/review',
  'GET /account/exports/:x',
  'GET /account?lang=:x&done=:x',
  'GET /account/callback?code=:x&state=:x',
  'GET /account/sign-in?return=:x',
  'GET /v1/oidc/interaction/:x',
  'POST /v1/oidc/interaction/:x/login',
  'GET /v1/oidc/interaction/:x/signup',
  'POST /v1/oidc/interaction/:x/signup',
  'POST /v1/oidc/interaction/:x/code',
  'POST /v1/oidc/interaction/:x/consent',
  'GET /v1/oidc/interaction/:x/abort',
  'GET /v1/oidc/auth?client_id=:x&response_type=code&scope=openid&redirect_uri=:x&state=:x',
  'GET /v1/oidc/auth?request_uri=:x&client_id=:x',
  'POST /v1/oidc/token',
  'POST /v1/oidc/request',
  'POST /v1/oauth2/token',
  'GET /v1/oidc/me',
  'GET /v1/oidc/session/end?id_token_hint=:x',
  'POST /v1/oidc/token/introspection',
  'POST /v1/oidc/token/revocation',
  'GET /v1/oidc/jwks',
  'GET /v1/oidc/.well-known/openid-configuration',
];
