import { byLocale } from '../i18n';
import type { AccountLocale } from '../accounts/account-messages';

const en = {
  title: 'Members',
  lead: 'Owners and admins invite members and set their roles. Reviewers decide sessions; viewers only read. Reviewers and above sign in with a second factor.',
  membersCaption: 'Members of this console',
  colEmail: 'Email',
  colRole: 'Role',
  colSince: 'Member since',
  colActions: 'Actions',
  you: 'you',
  newRoleFor: 'New role for',
  changeRole: 'Change role',
  remove: 'Remove',
  pendingHeading: 'Invitations not yet accepted',
  expires: 'expires',
  inviteHeading: 'Invite a member',
  inviteEmail: 'Email address',
  inviteRole: 'Role',
  sendInvite: 'Send invitation',
  invited: 'The invitation is sent. The link works once, for 7 days.',
  roleChanged: 'The role is changed.',
  removed: 'The member is removed.',
  badEmail: 'Enter a valid email address.',
  onlyOwnerMakesOwner: 'Only an owner can make, change or remove an owner.',
  lastOwner: 'A tenant keeps at least one owner: make someone else an owner first.',
  notFound: 'That member is no longer here.',
};
export type MembersMessages = typeof en;

const de: MembersMessages = {
  title: 'Mitglieder',
  lead: 'Inhaber und Administratoren laden Mitglieder ein und legen ihre Rollen fest. Prüfer entscheiden Sitzungen; Betrachter lesen nur. Prüfer und höhere Rollen melden sich mit einem zweiten Faktor an.',
  membersCaption: 'Mitglieder dieser Konsole',
  colEmail: 'E-Mail',
  colRole: 'Rolle',
  colSince: 'Mitglied seit',
  colActions: 'Aktionen',
  you: 'Sie',
  newRoleFor: 'Neue Rolle für',
  changeRole: 'Rolle ändern',
  remove: 'Entfernen',
  pendingHeading: 'Noch nicht angenommene Einladungen',
  expires: 'läuft ab am',
  inviteHeading: 'Mitglied einladen',
  inviteEmail: 'E-Mail-Adresse',
  inviteRole: 'Rolle',
  sendInvite: 'Einladung senden',
  invited: 'Die Einladung ist versandt. Der Link gilt einmal, 7 Tage lang.',
  roleChanged: 'Die Rolle ist geändert.',
  removed: 'Das Mitglied ist entfernt.',
  badEmail: 'Geben Sie eine gültige E-Mail-Adresse ein.',
  onlyOwnerMakesOwner: 'Nur ein Inhaber kann einen Inhaber ernennen, ändern oder entfernen.',
  lastOwner: 'Ein Mandant behält mindestens einen Inhaber: Ernennen Sie zuerst jemand anderen zum Inhaber.',
  notFound: 'Dieses Mitglied gibt es nicht mehr.',
};

export const membersMessagesFor = byLocale<AccountLocale, MembersMessages>({ 'en-US': en, 'de-DE': de });
