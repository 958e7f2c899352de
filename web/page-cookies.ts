import type { Request, Response } from 'express';

/**
 * The cookies of the service's own pages (the account portal, the console): each under its own path,
 * HttpOnly, SameSite=Lax, and Secure when the service is served over https. Values are sealed or random
 * tokens, never anything a page script needs.
 */
export class PageCookies {
  constructor(
    private readonly path: string,
    private readonly secure: boolean,
  ) {}

  read(req: Request, name: string): string | undefined {
    for (const part of (req.headers.cookie ?? '').split(';')) {
      const eq = part.indexOf('=');
      if (eq > 0 && part.slice(0, eq).trim() === name) return part.slice(eq + 1).trim();
    }
    return undefined;
  }

  /** A max age of 0 removes the cookie. */
  set(res: Response, name: string, value: string, maxAgeSeconds: number): void {
    const attrs = [`${name}=${value}`, `Path=${this.path}`, `Max-Age=${maxAgeSeconds}`, 'HttpOnly', 'SameSite=Lax', ...(this.secure ? ['Secure'] : [])];
    res.append('set-cookie', attrs.join('; '));
  }
}
