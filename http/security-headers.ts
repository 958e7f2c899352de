import type { NextFunction, Request, Response } from 'express';

/**
 * Security headers of the HTML pages the service serves (docs/security.md). One module so the
 * hosted flow can widen `frameAncestors` per flow (its `allowed_origins`) in one place.
 */
export type PagePolicy = {
  /** Origins allowed to frame the page; none by default (clickjacking). */
  frameAncestors?: readonly string[];
  /** Extra image origins, e.g. a tenant's https logo on the hosted page. */
  imgOrigins?: readonly string[];
  /**
   * Pages that inline their own script bundle (GraphiQL, the copyable example): they keep
   * everything but the source restrictions, which their inline code would break.
   */
  inlineBundle?: boolean;
  /** Origins a form submission may end up at through redirects (the sign-in pages' OIDC redirect_uri). */
  formActionOrigins?: readonly string[];
};

function contentSecurityPolicy(p: PagePolicy): string {
  const ancestors = p.frameAncestors?.length ? p.frameAncestors.join(' ') : "'none'";
  if (p.inlineBundle) return `frame-ancestors ${ancestors}; base-uri 'none'; object-src 'none'`;
  const img = ["'self'", 'data:', ...(p.imgOrigins ?? [])].join(' ');
  // Our pages carry no script of their own; inline style attributes hold the tenant's colour.
  return [
    "default-src 'self'",
    "script-src 'self'",
    "style-src 'self' 'unsafe-inline'",
    `img-src ${img}`,
    "connect-src 'self'",
    ["form-action 'self'", ...(p.formActionOrigins ?? [])].join(' '),
    "base-uri 'none'",
    "object-src 'none'",
    `frame-ancestors ${ancestors}`,
  ].join('; ');
}

export function setPageSecurityHeaders(res: Response, policy: PagePolicy = {}): void {
  res.setHeader('content-security-policy', contentSecurityPolicy(policy));
  if (!policy.frameAncestors?.length) res.setHeader('x-frame-options', 'DENY');
  res.setHeader('x-content-type-options', 'nosniff');
  res.setHeader('referrer-policy', 'no-referrer');
}

/** Middleware form, for routes whose policy does not depend on the request. */
export function pageSecurityHeaders(policy: PagePolicy = {}) {
  return (_req: Request, res: Response, next: NextFunction): void => {
    setPageSecurityHeaders(res, policy);
    next();
  };
}
