import type { Request, Response } from 'express';
import type { ConsoleGate } from './console-guard';
import { chromeOf } from './console-layout';
import type { ReviewPage } from './review-html';
import { reviewMessagesFor } from './review-messages';

/** The words and reader of a review or settings page: the signed-in member and the shell's language. */
export function reviewPageOf(gate: Pick<ConsoleGate, 'memberOf'>, req: Request, res: Response): ReviewPage {
  const member = gate.memberOf(res);
  const locale = chromeOf(req, res).locale;
  return { locale, rm: reviewMessagesFor(locale), memberId: member.memberId, role: member.role };
}
