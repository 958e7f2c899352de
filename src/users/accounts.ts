import type Provider from 'oidc-provider';
import type { DataSource } from 'typeorm';
import { UserTokenPolicy } from '../auth/user-token.policy';
import type { Config } from '../config';
import { SecretBox } from '../crypto/secret-box';
import type { PreparedSql } from '../db/prepared-sql';
import { MailOutbox } from '../mail/mail-outbox';
import { AccessTokenVerifier } from '../auth/access-token.verifier';
import { revokeAllGrantsOf } from '../oidc/oidc-adapter';
import { FirstPartySignIn, portalSubjectOf } from '../oidc/first-party-sign-in';
import { OidcClients } from '../oidc/oidc-clients';
import { OidcKeys } from '../oidc/oidc-keys';
import { apiResourceOf, createOidcProvider, issuerOf } from '../oidc/oidc-provider';
import { ConnectedAppsService } from '../oidc/connected-apps.service';
import { MeService } from './me.service';
import { UserVerificationsService } from './user-verifications.service';
import { SignInService } from './sign-in.service';
import { UserService } from './user.service';
import { loadUserDataBox } from './user-data-box';

/** Everything of end users and the OpenID Provider one process holds (docs/accounts-and-oidc.md). */
export type Accounts = {
  box: SecretBox;
  users: UserService;
  mail: MailOutbox;
  signIn: SignInService;
  clients: OidcClients;
  keys: OidcKeys;
  provider: Provider;
  accessTokens: AccessTokenVerifier;
  /** The service's own account pages signing people in through the provider (src/oidc/first-party-sign-in.ts). */
  firstParty: FirstPartySignIn;
  /** What a user token may do (D20): every /v1/me route and user-token GraphQL field asks it. */
  userTokens: UserTokenPolicy;
  /** What GET /v1/me and GraphQL's `viewer` show. */
  me: MeService;
  /** The tenants' apps a user granted, revocable one by one (the account portal). */
  connectedApps: ConnectedAppsService;
  /** The user's verifications at every tenant (the account portal). */
  verifications: UserVerificationsService;
  /** Ends every grant (and token, and provider session) of a user: erasure and restriction call it. */
  revokeAllGrantsOf(userId: string): Promise<number>;
};

export async function buildAccounts(db: DataSource, sql: PreparedSql, config: Config): Promise<Accounts> {
  const box = await loadUserDataBox(db, config);
  const users = new UserService(db, box);
  const mail = new MailOutbox(db, box, { smtpUrl: config.accounts.smtpUrl, from: config.accounts.mailFrom });
  const clients = new OidcClients(db, box);
  const keys = await OidcKeys.load(db, box);
  const provider = createOidcProvider({ db, box, users, clients, keys, publicBaseUrl: config.publicBaseUrl, accessTokenTtlSeconds: config.accounts.accessTokenTtlSeconds, portalClientSecret: config.accounts.portalClientSecret });
  return {
    box,
    users,
    mail,
    signIn: new SignInService(db, box, users, mail, config.accounts.codeTtlSeconds * 1000),
    clients,
    keys,
    provider,
    firstParty: new FirstPartySignIn(provider, box, config.publicBaseUrl),
    userTokens: new UserTokenPolicy(config.accounts.reauthenticationWindowSeconds),
    me: new MeService(sql, users),
    accessTokens: new AccessTokenVerifier(keys, clients, sql, issuerOf(config.publicBaseUrl), apiResourceOf(config.publicBaseUrl), (userId) => portalSubjectOf(box, userId)),
    connectedApps: new ConnectedAppsService(db),
    verifications: new UserVerificationsService(db),
    revokeAllGrantsOf: (userId) => revokeAllGrantsOf(db, userId),
  };
}
