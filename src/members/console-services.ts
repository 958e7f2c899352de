import type { DataSource } from 'typeorm';
import type { AuditLogService } from '../audit/audit-log.service';
import type { Config } from '../config';
import { CONSOLE_CLIENT, FirstPartySignIn } from '../oidc/first-party-sign-in';
import type { Accounts } from '../users/accounts';
import { ConsoleSessionService } from './console-session.service';
import { InvitationService } from './invitation.service';
import { MemberService } from './member.service';
import { SecondFactorService } from './second-factor.service';

/** Everything the console's pages call (docs/console.md): members, invitations, sign-ins and second factors. */
export type ConsoleServices = {
  members: MemberService;
  invitations: InvitationService;
  sessions: ConsoleSessionService;
  factors: SecondFactorService;
  /** The console as a first-party client of the service's own provider (src/oidc/first-party-sign-in.ts). */
  signIn: FirstPartySignIn;
};

export function buildConsoleServices(db: DataSource, config: Config, accounts: Accounts, audit: AuditLogService): ConsoleServices {
  const members = new MemberService(db, accounts.box, audit);
  return {
    members,
    invitations: new InvitationService(db, accounts.box, accounts.mail, members, accounts.users, audit, config.publicBaseUrl, config.console.invitationTtlSeconds),
    sessions: new ConsoleSessionService(db, { absoluteSeconds: config.console.sessionTtlSeconds, idleSeconds: config.console.idleTimeoutSeconds }, audit),
    factors: new SecondFactorService(db, accounts.box, audit, config.publicBaseUrl),
    signIn: new FirstPartySignIn(accounts.provider, accounts.box, config.publicBaseUrl, undefined, CONSOLE_CLIENT),
  };
}
