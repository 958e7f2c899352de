/**
 * `npm run bench:sign-up`: does the sign-up page's answer time tell whether an email has an account?
 * Through the built server started as `npm start` starts it: each sign-up opens its own sign-in page
 * (PAR, authorize, the sign-up link), then only the form's POST is timed. Sign-ups with the address of
 * an existing (verified) account alternate with sign-ups with new addresses, the baseline of the same run.
 * Goal (issue #25, finding 2): median(existing) / median(new) within 0.8-1.25. BENCH_SIGNUPS per kind (default 40).
 */
import { generators } from 'openid-client';
import { browse, CookieJar, createOidcTenant, createUser, follow, formAction, relyingParty, startOidcServer, TEST_REDIRECT_URI } from '../test/helpers/oidc-login';
import { median } from './bench-support';

async function main() {
  const rounds = Number(process.env.BENCH_SIGNUPS ?? 40);
  // Rate limits off: 2 x BENCH_SIGNUPS sign-ups from one address would meet the pages' per-address bucket.
  const server = await startOidcServer({ RATE_LIMIT_ENABLED: 'false' });
  try {
    const tenant = await createOidcTenant(server);
    const client = await relyingParty(server, tenant);
    const known = `known.${Date.now()}@example.com`;
    await createUser(server, known);
    const signUp = async (email: string): Promise<number> => {
      const jar = new CookieJar();
      const verifier = generators.codeVerifier();
      const par = await client.pushedAuthorizationRequest({ scope: 'openid email', code_challenge: generators.codeChallenge(verifier), code_challenge_method: 'S256' });
      const page = await follow(jar, await browse(jar, client.authorizationUrl({ request_uri: par.request_uri })), TEST_REDIRECT_URI);
      const form = await browse(jar, new URL(/href="([^"]+\/signup)"/.exec(page.html)![1], page.url).href);
      const t = performance.now();
      const done = await browse(jar, formAction(form), { email, password: 'a long enough passphrase' });
      const ms = performance.now() - t;
      if (done.status !== 200 || !done.html.includes('name="code"')) throw new Error(`sign-up answered ${done.status}`);
      return ms;
    };
    await signUp(`warmup.${Date.now()}@example.com`);
    const times = { existing: [] as number[], new: [] as number[] };
    for (let i = 0; i < rounds; i++) {
      times.existing.push(await signUp(known));
      times.new.push(await signUp(`new.${Date.now()}.${i}@example.com`));
    }
    const m = { existing: median(times.existing), new: median(times.new) };
    console.log(JSON.stringify({ signUpsPerKind: rounds, medianMs: { existingEmail: Math.round(m.existing * 10) / 10, newEmail: Math.round(m.new * 10) / 10 }, ratioExistingToNew: Math.round((m.existing / m.new) * 100) / 100, goal: '0.8-1.25' }, null, 2));
  } finally {
    await server.stop();
  }
}

void main().then(
  () => process.exit(0),
  (e) => {
    console.error(e);
    process.exit(1);
  },
);
