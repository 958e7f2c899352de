import express, { type NextFunction, type Request, type RequestHandler, type Response } from 'express';
import { DomainError } from '../src/errors';
import { assertAcceptableInput } from '../src/validation/input-limits';

/** How a surface answers input it refuses: its own 400 page (the console's, the account pages', the sign-in pages'). */
export type RefuseInput = (req: Request, res: Response) => void;

/** The reason the input is refused (for the log), or null when it is acceptable. */
function refusalOf(check: () => void): string | null {
  try {
    check();
    return null;
  } catch (err) {
    if (err instanceof DomainError || err instanceof URIError) return err.message;
    throw err;
  }
}

/**
 * The same limits on page input as on /v1's (src/validation/input-limits.ts; issue #40 finding 10):
 * no NUL, no unpaired surrogate, no string over 4,096 characters, in the path's segments, every
 * query parameter and, through `pageForm`, every form field. A page refuses such input with its 400
 * before any handler runs, so nothing of it is stored or looked up.
 */
export function pageInputGuard(refuse: RefuseInput): RequestHandler {
  return (req: Request, res: Response, next: NextFunction) => {
    const refused = refusalOf(() => assertAcceptableInput({ path: req.path.split('/').map((segment) => decodeURIComponent(segment)), query: req.query }));
    if (refused === null) return next();
    refuse(req, res);
  };
}

/**
 * A page form's body parser followed by the same check on every field, but those in `ownChecks`: fields whose
 * handler already refuses the same input in words beside the field (a password holding a NUL, a display name
 * holding one), so that the person sees what to change on the form they filled rather than a bare 400 page. The
 * handler's check is the same rule (src/validation/input-limits.ts), and such a field still stores nothing.
 */
export function pageForm(limit: string, refuse: RefuseInput, ownChecks: readonly string[] = []): RequestHandler[] {
  return [express.urlencoded({ extended: false, limit }), bodyGuard(refuse, ownChecks)];
}

/** The JSON body parser of a page's own script (the passkey ceremonies), followed by the same check. */
export function pageJson(limit: string, refuse: RefuseInput): RequestHandler[] {
  return [express.json({ limit }), bodyGuard(refuse)];
}

function bodyGuard(refuse: RefuseInput, ownChecks: readonly string[] = []): RequestHandler {
  return (req: Request, res: Response, next: NextFunction) => {
    const body: unknown = req.body;
    const checked = body && typeof body === 'object' ? Object.fromEntries(Object.entries(body).filter(([field]) => !ownChecks.includes(field))) : null;
    const refused = checked ? refusalOf(() => assertAcceptableInput({ form: checked })) : null;
    if (refused === null) return next();
    refuse(req, res);
  };
}
