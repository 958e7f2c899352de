import { escapeHtml as esc } from '../../http/html';
import { MEMBER_ROLES, type ConsoleMember, type MemberRole } from '../../src/members/member';
import type { Invitation } from '../../src/members/invitation.service';
import type { Member } from '../../src/members/member.service';
import { CONSOLE_PATH } from '../../src/oidc/first-party-sign-in';
import type { AccountLocale } from '../accounts/account-messages';
import { errorSummary } from './console-layout';
import { roleName, type ConsoleMessages } from './console-messages';
import type { MembersMessages } from './members-messages';

export type MembersView = {
  locale: AccountLocale;
  m: ConsoleMessages;
  mm: MembersMessages;
  me: ConsoleMember;
  members: Member[];
  invitations: Invitation[];
  /** Owner and admin see the forms; others read. */
  canManage: boolean;
  formToken: string;
  notice: string | null;
  error: { text: string; field?: string } | null;
  values: { email: string; role: MemberRole };
};

/** The roles `me` may give: an admin gives every role but owner. */
const givable = (me: ConsoleMember): readonly MemberRole[] => (me.role === 'owner' ? MEMBER_ROLES : MEMBER_ROLES.filter((r) => r !== 'owner'));

function roleSelect(v: MembersView, id: string, label: string, selected: MemberRole): string {
  const options = givable(v.me)
    .slice()
    .reverse()
    .map((r) => `<option value="${r}"${r === selected ? ' selected' : ''}>${esc(roleName(v.m, r))}</option>`)
    .join('');
  return `<label class="label" for="${id}">${esc(label)}</label><select class="select" id="${id}" name="role">${options}</select>`;
}

/** The Members page: who is a member with which role, pending invitations, and (owner/admin) invite, change role, remove. */
export function membersPage(v: MembersView): string {
  const { mm } = v;
  const format = new Intl.DateTimeFormat(v.locale, { dateStyle: 'medium', timeZone: 'UTC' }); // once per page: building one costs more than the row
  const date = (d: Date) => format.format(d);
  const rows = v.members
    .map((x) => {
      const editable = v.canManage && x.id !== v.me.memberId && (v.me.role === 'owner' || x.role !== 'owner');
      const actions = editable
        ? `<form method="post" action="${CONSOLE_PATH}/members/${esc(x.id)}/role"><input type="hidden" name="form_token" value="${esc(v.formToken)}">${roleSelect(v, `role-${x.id}`, `${mm.newRoleFor} ${x.email}`, x.role)}
<button class="button button--secondary" type="submit">${esc(mm.changeRole)}</button></form>
<form method="post" action="${CONSOLE_PATH}/members/${esc(x.id)}/remove"><input type="hidden" name="form_token" value="${esc(v.formToken)}"><button class="button button--warning" type="submit" aria-label="${esc(`${mm.remove} ${x.email}`)}">${esc(mm.remove)}</button></form>`
        : '';
      return `<tr><td data-label="${esc(mm.colEmail)}">${esc(x.email)}${x.id === v.me.memberId ? ` <span class="hint">(${esc(mm.you)})</span>` : ''}</td><td data-label="${esc(mm.colRole)}">${esc(roleName(v.m, x.role))}</td><td data-label="${esc(mm.colSince)}">${esc(date(x.createdAt))}</td>${v.canManage ? `<td>${actions}</td>` : ''}</tr>`;
    })
    .join('');
  const table = `<table class="console-table"><caption>${esc(mm.membersCaption)}</caption><thead><tr><th scope="col">${esc(mm.colEmail)}</th><th scope="col">${esc(mm.colRole)}</th><th scope="col">${esc(mm.colSince)}</th>${v.canManage ? `<th scope="col">${esc(mm.colActions)}</th>` : ''}</tr></thead><tbody>${rows}</tbody></table>`;
  const pending = v.invitations.length
    ? `<section class="console-section" aria-labelledby="inv-h"><h2 id="inv-h">${esc(mm.pendingHeading)}</h2><ul class="list">${v.invitations
        .map((i) => {
          // An admin withdraws what an admin could have sent: not an owner's invitation.
          const withdraw =
            v.canManage && (v.me.role === 'owner' || i.role !== 'owner')
              ? ` <form class="inline-form" method="post" action="${CONSOLE_PATH}/members/invitations/${esc(i.id)}/withdraw"><input type="hidden" name="form_token" value="${esc(v.formToken)}"><button class="button button--warning" type="submit" aria-label="${esc(`${mm.withdrawInvitationTo} ${i.email}`)}">${esc(mm.withdraw)}</button></form>`
              : '';
          return `<li>${esc(i.email)}: ${esc(roleName(v.m, i.role))}, ${esc(mm.expires)} ${esc(date(i.expiresAt))}${withdraw}</li>`;
        })
        .join('')}</ul></section>`
    : '';
  const invite = v.canManage
    ? `<section class="console-section" aria-labelledby="invite-h"><h2 id="invite-h">${esc(mm.inviteHeading)}</h2><form method="post" action="${CONSOLE_PATH}/members/invite" novalidate>
<input type="hidden" name="form_token" value="${esc(v.formToken)}">
<div class="field"><label class="label" for="email">${esc(mm.inviteEmail)}</label><input class="text-input" id="email" name="email" type="email" autocomplete="off" value="${esc(v.values.email)}"${v.error?.field === 'email' ? ' aria-invalid="true"' : ''} required></div>
<div class="field">${roleSelect(v, 'role', mm.inviteRole, v.values.role)}</div>
<div class="actions"><button class="button button--primary" type="submit">${esc(mm.sendInvite)}</button></div></form></section>`
    : '';
  const notice = v.notice ? `<div class="notice" role="status"><p>${esc(v.notice)}</p></div>` : '';
  return `${errorSummary(v.m, v.error?.text ?? null, v.error?.field)}${notice}<h1>${esc(mm.title)}</h1><p>${esc(mm.lead)}</p>${table}${pending}${invite}`;
}
