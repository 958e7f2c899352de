export const ACCOUNT_LOCALES = ['en-US', 'de-DE'] as const;
export type AccountLocale = (typeof ACCOUNT_LOCALES)[number];

const en = {
  signInTitle: 'Sign in',
  signInLead: 'Sign in to your identity account to continue to {client}.',
  email: 'Email',
  password: 'Password',
  code: 'Code',
  continue: 'Continue',
  signIn: 'Sign in',
  noAccount: 'No account yet?',
  createAccount: 'Create an account',
  signUpTitle: 'Create an account',
  signUpLead: 'Create an identity account to continue to {client}. Your password needs at least 10 characters.',
  haveAccount: 'Already have an account?',
  codeTitle: 'Check your email',
  codeLead: 'If {email} can receive mail, we have sent it a 6-digit code. Enter it below. The code expires in 10 minutes.',
  codeHint: 'The 6 digits from the email',
  badCredentials: 'The email or password is not right, or sign-in is paused for a while after too many attempts.',
  badCode: 'That code is not right or has expired. Check the latest email or start again.',
  badSignUp: 'Enter a valid email address and a password of 10 to 200 characters.',
  consentTitle: 'Share with {client}',
  consentLead: '{client} asks to:',
  allow: 'Allow',
  deny: 'Do not allow',
  errorSummary: 'There is a problem',
  scope_openid: 'Know that it is you (a sign-in identifier only {client} sees)',
  scope_email: 'See your email address',
  scope_profile: 'See your display name and handle',
  scope_verification: 'See your verification badges, tier and when you were verified',
  scope_offline_access: 'Keep access when you are not using it',
  signedOut: 'You are signed out.',
  signOutTitle: 'Sign out',
  signOutLead: 'Do you want to sign out of your identity account?',
  signOut: 'Sign out',
  stay: 'Stay signed in',
  mailCodeSubject: 'Your code: {code}',
  mailCodeText: 'Your code is {code}. It expires in 10 minutes. If you did not ask for it, ignore this email.',
  mailExistsSubject: 'Someone tried to create an account with your email',
  mailExistsText: 'Someone (perhaps you) tried to create a new account with this email address, which already has one. Sign in instead. If it was not you, you can ignore this email.',
};

export type AccountMessages = typeof en;

const de: AccountMessages = {
  signInTitle: 'Anmelden',
  signInLead: 'Melden Sie sich bei Ihrem Identitätskonto an, um mit {client} fortzufahren.',
  email: 'E-Mail',
  password: 'Passwort',
  code: 'Code',
  continue: 'Weiter',
  signIn: 'Anmelden',
  noAccount: 'Noch kein Konto?',
  createAccount: 'Konto erstellen',
  signUpTitle: 'Konto erstellen',
  signUpLead: 'Erstellen Sie ein Identitätskonto, um mit {client} fortzufahren. Ihr Passwort braucht mindestens 10 Zeichen.',
  haveAccount: 'Sie haben schon ein Konto?',
  codeTitle: 'Prüfen Sie Ihre E-Mails',
  codeLead: 'Wenn {email} E-Mails empfangen kann, haben wir einen 6-stelligen Code gesendet. Geben Sie ihn unten ein. Der Code ist 10 Minuten gültig.',
  codeHint: 'Die 6 Ziffern aus der E-Mail',
  badCredentials: 'E-Mail oder Passwort stimmen nicht, oder die Anmeldung ist nach zu vielen Versuchen kurz gesperrt.',
  badCode: 'Der Code stimmt nicht oder ist abgelaufen. Prüfen Sie die neueste E-Mail oder beginnen Sie neu.',
  badSignUp: 'Geben Sie eine gültige E-Mail-Adresse und ein Passwort mit 10 bis 200 Zeichen ein.',
  consentTitle: 'Mit {client} teilen',
  consentLead: '{client} möchte:',
  allow: 'Erlauben',
  deny: 'Nicht erlauben',
  errorSummary: 'Es gibt ein Problem',
  scope_openid: 'Wissen, dass Sie es sind (eine Kennung, die nur {client} sieht)',
  scope_email: 'Ihre E-Mail-Adresse sehen',
  scope_profile: 'Ihren Anzeigenamen und Ihr Handle sehen',
  scope_verification: 'Ihre Verifizierungsabzeichen, Stufe und den Zeitpunkt der Verifizierung sehen',
  scope_offline_access: 'Zugriff behalten, wenn Sie die App nicht nutzen',
  signedOut: 'Sie sind abgemeldet.',
  signOutTitle: 'Abmelden',
  signOutLead: 'Möchten Sie sich von Ihrem Identitätskonto abmelden?',
  signOut: 'Abmelden',
  stay: 'Angemeldet bleiben',
  mailCodeSubject: 'Ihr Code: {code}',
  mailCodeText: 'Ihr Code lautet {code}. Er ist 10 Minuten gültig. Wenn Sie ihn nicht angefordert haben, ignorieren Sie diese E-Mail.',
  mailExistsSubject: 'Jemand wollte mit Ihrer E-Mail ein Konto erstellen',
  mailExistsText: 'Jemand (vielleicht Sie) wollte mit dieser E-Mail-Adresse ein neues Konto erstellen, für die es schon eines gibt. Melden Sie sich stattdessen an. Wenn Sie es nicht waren, ignorieren Sie diese E-Mail.',
};

const MESSAGES: Record<AccountLocale, AccountMessages> = { 'en-US': en, 'de-DE': de };

export const messagesFor = (locale: AccountLocale): AccountMessages => MESSAGES[locale];

/** `ui_locales` first (what the app asked for), then the browser's Accept-Language, then en-US. */
export function accountLocale(uiLocales: string | undefined, accepts: (langs: string[]) => string | false): AccountLocale {
  for (const tag of (uiLocales ?? '').split(' ').filter(Boolean)) {
    const found = ACCOUNT_LOCALES.find((l) => l.toLowerCase() === tag.toLowerCase() || l.split('-')[0] === tag.split('-')[0].toLowerCase());
    if (found) return found;
  }
  const accepted = accepts(['en-US', 'de-DE', 'en', 'de']);
  return accepted && accepted.startsWith('de') ? 'de-DE' : 'en-US';
}

export const fill = (text: string, vars: Record<string, string>): string => text.replace(/\{(\w+)\}/g, (_, k: string) => vars[k] ?? '');
