type Attrs = Record<string, string | boolean | ((e: Event) => void) | undefined>;

/** A tiny element builder: attributes, `on*` listeners and children (strings become text, never HTML). */
export function h(tag: string, attrs: Attrs = {}, ...children: (Node | string | null | undefined | false)[]): HTMLElement {
  const el = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (v === undefined || v === false) continue;
    if (typeof v === 'function') el.addEventListener(k.slice(2).toLowerCase(), v);
    else if (v === true) el.setAttribute(k, '');
    else el.setAttribute(k, v);
  }
  for (const c of children) if (c !== null && c !== undefined && c !== false) el.append(typeof c === 'string' ? document.createTextNode(c) : c);
  return el;
}

/** Replaces the page's main content and moves focus to its heading, so screen readers announce each step. */
export function show(root: HTMLElement, ...content: (HTMLElement | null)[]): void {
  root.replaceChildren(...content.filter((c): c is HTMLElement => c !== null));
  const heading = root.querySelector('h1');
  if (heading) {
    heading.setAttribute('tabindex', '-1');
    heading.focus();
  }
  document.title = `${heading?.textContent ?? ''} - ${document.title.split(' - ').pop()}`;
  window.scrollTo(0, 0);
}

/** The GOV.UK-style error summary: a titled alert at the top linking to the field at fault. */
export function errorSummary(title: string, message: string, fieldId?: string): HTMLElement {
  return errorSummaryOf(title, [{ message, fieldId }]);
}

/** The same summary with one entry per field at fault. */
export function errorSummaryOf(title: string, items: { message: string; fieldId?: string }[]): HTMLElement {
  return h(
    'div',
    { class: 'error-summary', role: 'alert', tabindex: '-1' },
    h('h2', { class: 'error-summary__title' }, title),
    h('ul', {}, ...items.map((i) => h('li', {}, i.fieldId ? h('a', { href: `#${i.fieldId}`, onclick: (e: Event) => focusField(e, i.fieldId!) }, i.message) : i.message))),
  );
}

/** A summary link moves focus into its field (a fragment alone only scrolls), as the GOV.UK pattern does. */
function focusField(e: Event, id: string): void {
  const field = document.getElementById(id);
  if (!field) return;
  e.preventDefault();
  field.focus();
  field.scrollIntoView({ block: 'center' });
}
