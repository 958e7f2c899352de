import { ApiError, Challenge, HostedApi, TestOutcome, View } from './api';
import { grabFrame, openCamera, stopCamera } from './camera';
import { errorSummary, errorSummaryOf, h, show } from './dom';
import { fill } from '../../i18n';
import { Strings, stringsFor } from './i18n';
import { listen, post } from './messages';

type Config = { session_id: string; locale: string; hosted_url: string };

/** Frames per second sent per liveness step, how long each step is filmed, and the fewest frames a step needs. */
const LIVENESS_FPS = 6;
const LIVENESS_FILM_MS = 2_000;
const LIVENESS_MIN_FRAMES = 5;
const IMAGE_TYPES = ['image/jpeg', 'image/png', 'image/webp'];
const MAX_IMAGE_BYTES = 10 * 1024 * 1024;

const root = document.getElementById('app')!;
const config = JSON.parse(document.getElementById('hosted-config')!.textContent!) as Config;
const token = new URLSearchParams(location.search).get('token') ?? '';
const api = new HostedApi(config.session_id, token);
const t: Strings = stringsFor(config.locale);
let view: View;
let stream: MediaStream | null = null;

const name = () => view.branding.display_name;
const tell = (type: 'ready' | 'step' | 'completed' | 'canceled' | 'error', step?: string) =>
  post(view.allowed_origins, { type, session_id: view.session_id, status: view.status, step });

function progress(step: string): HTMLElement | null {
  const steps = view.steps;
  const n = steps.indexOf(step) + 1;
  return n > 0 ? h('p', { class: 'progress' }, fill(t.stepOf, { n, total: steps.length })) : null;
}

function button(label: string, onClick: () => void, kind: 'primary' | 'secondary' = 'primary', attrs: Record<string, string> = {}): HTMLElement {
  return h('button', { type: 'button', class: `button button--${kind}`, onclick: onClick, ...attrs }, label);
}

function cancelLink(): HTMLElement {
  return h('p', { class: 'cancel' }, button(t.cancel, () => void cancel(), 'secondary', { 'data-action': 'cancel' }));
}

async function cancel(): Promise<void> {
  stopCamera(stream);
  view = await api.cancel();
  tell('canceled');
  finish();
}

async function main(): Promise<void> {
  try {
    view = await api.open();
  } catch {
    show(root, h('h1', {}, t.invalidLink));
    return;
  }
  listen(view.allowed_origins, () => void cancel());
  tell('ready');
  // A test session needs nothing from the person (D22): its own page, whatever its tier.
  if (!view.livemode && TEST_UNDECIDED.includes(view.status)) return view.submitted ? processing() : testSession();
  // T5 with its web steps done and the chip still to come: the app handoff again (a fresh link).
  if (view.submitted && view.status === 'in_progress' && view.steps.includes('mobile_handoff')) return void mobileHandoff();
  if (view.submitted || !['created', 'in_progress'].includes(view.status)) return view.submitted && view.status === 'processing' ? processing() : finish();
  if (view.steps.length === 0) return finish();
  consent();
}

/** Statuses in which a test session can still take another outcome (its clock decides it at 10 s). */
const TEST_UNDECIDED = ['created', 'in_progress', 'processing'];
let testOutcomeChosen = false;

/**
 * A test session's page (docs/decisions.md D22): no camera and no documents. It says it is a test and which
 * outcome the session will take, and offers the three; the session resolves on its own clock
 * whatever happens here, and the page follows it to its last page.
 */
function testSession(): void {
  tell('step', 'test_outcome');
  const label: Record<TestOutcome, string> = { approved: t.testApproved, declined: t.testDeclined, review: t.testReview };
  const choose = (outcome: TestOutcome) =>
    button(label[outcome], () => void chooseTestOutcome(outcome), outcome === view.test_outcome ? 'primary' : 'secondary', { 'data-outcome': outcome });
  show(
    root,
    h('p', { class: 'test-badge' }, t.testBadge),
    h('h1', {}, t.testHeading),
    h('p', {}, fill(t.testIntro, { name: name() })),
    h('p', { id: 'test-outcome', 'data-outcome': view.test_outcome ?? '' }, fill(t.testResolves, { outcome: label[view.test_outcome ?? 'approved'] })),
    h('p', { id: 'test-choose' }, t.testChoose),
    h('div', { class: 'actions', role: 'group', 'aria-labelledby': 'test-choose' }, choose('approved'), choose('declined'), choose('review')),
  );
  void followTestSession();
}

async function chooseTestOutcome(outcome: TestOutcome): Promise<void> {
  testOutcomeChosen = true;
  try {
    view = await api.chooseTestOutcome(outcome);
  } catch {
    view = await api.view(); // decided meanwhile by its clock: its last page
  }
  await processing();
}

/** Until a choice is made, follows the session (as `processing` does) to its last page when its clock decides it. */
async function followTestSession(): Promise<void> {
  let wait = 1500;
  while (!testOutcomeChosen && TEST_UNDECIDED.includes(view.status)) {
    await sleep(wait);
    wait = Math.min(5000, wait * 1.5);
    if (testOutcomeChosen) return;
    try {
      const next = await api.view();
      if (!testOutcomeChosen) view = next;
    } catch (err) {
      if (err instanceof ApiError && err.status === 429) wait = 5000;
    }
  }
  if (testOutcomeChosen) return;
  tell('completed');
  finish();
}

function consent(): void {
  tell('step', 'consent');
  show(
    root,
    progress('consent')!,
    h('h1', {}, t.consentHeading),
    h('p', {}, fill(t.consentIntro, { name: name() })),
    h('ul', { class: 'list' }, h('li', {}, t.consentDocument), h('li', {}, t.consentSelfie), view.steps.includes('liveness') ? h('li', {}, t.consentVideo) : null, h('li', {}, t.consentTemplates)),
    h('p', {}, t.consentNoOther),
    h(
      'div',
      { class: 'actions' },
      button(t.agree, async () => {
        view = await api.start();
        chooseDocument();
      }),
      button(
        t.decline,
        async () => {
          view = await api.decline();
          tell('completed');
          show(root, h('h1', {}, t.declinedHeading), h('p', {}, t.declinedBody), returnLink());
        },
        'secondary',
      ),
    ),
  );
}

function chooseDocument(error = false): void {
  tell('step', 'document');
  const radio = (value: string, label: string, first: boolean) =>
    h('div', { class: 'radio' }, h('input', { type: 'radio', name: 'doc', id: first ? 'doc-type' : `doc-${value}`, value }), h('label', { for: first ? 'doc-type' : `doc-${value}` }, label));
  const form = h(
    'form',
    { novalidate: true },
    h(
      'fieldset',
      { class: error ? 'fieldset fieldset--error' : 'fieldset', 'aria-describedby': error ? 'doc-error' : undefined },
      h('legend', {}, h('h1', {}, t.chooseDocHeading)),
      error ? h('p', { class: 'field-error', id: 'doc-error' }, t.chooseDocError) : null,
      radio('passport', t.passport, true),
      radio('id_card', t.idCard, false),
    ),
    h('button', { type: 'submit', class: 'button button--primary' }, t.continue),
  );
  form.addEventListener('submit', (e) => {
    e.preventDefault();
    const chosen = (form.querySelector('input[name=doc]:checked') as HTMLInputElement | null)?.value;
    if (!chosen) return chooseDocument(true);
    const sides = chosen === 'passport' ? [{ side: 'data_page', heading: t.docPassportHeading }] : [{ side: 'front', heading: t.docFrontHeading }, { side: 'back', heading: t.docBackHeading }];
    void captureDocument(sides, 0);
  });
  const digital = view.digital_id?.offered
    ? h('div', { class: 'alternative' }, h('p', {}, t.digitalIdOr), button(t.digitalIdUse, () => void useDigitalId(), 'secondary', { 'data-action': 'digital-id' }))
    : null;
  show(root, ...(error ? [errorSummary(t.errorSummary, t.chooseDocError, 'doc-type')] : []), progress('document')!, form, digital, cancelLink());
}

/** The Digital Credentials API of this browser, when it has one (Chrome and Safari ship it). */
type DigitalCredentialsGet = (options: { digital: { requests: unknown[] }; mediation?: string }) => Promise<{ protocol: string; data: unknown } | null>;
function digitalCredentials(): DigitalCredentialsGet | null {
  if (!('DigitalCredential' in window) || !navigator.credentials?.get) return null;
  return (options) => navigator.credentials.get(options as CredentialRequestOptions) as unknown as Promise<{ protocol: string; data: unknown } | null>;
}

/**
 * D24: a wallet instead of a document photo. On this device through the Digital Credentials API when the
 * browser has it; otherwise a QR code for the phone that holds the wallet, and this page waits for its answer.
 */
async function useDigitalId(): Promise<void> {
  tell('step', 'document');
  const request = await api.digitalIdRequest();
  const get = digitalCredentials();
  if (get) {
    show(root, progress('document')!, h('h1', {}, t.digitalIdHeading), h('p', { role: 'status' }, t.digitalIdAsking));
    let answer: { protocol: string; data: unknown } | null = null;
    try {
      // Signed first when the service has a verifier key; the browser and wallet take the one they can.
      answer = await get({ digital: { requests: request.dc_api_requests ?? [request.dc_api] }, mediation: 'required' });
    } catch {
      answer = null;
    }
    if (!answer) return digitalIdRefused(null);
    const outcome = await api.digitalIdAnswer(request.id, { protocol: answer.protocol, data: answer.data });
    return outcome.status === 'verified' ? selfie() : digitalIdRefused(outcome.reason);
  }
  show(
    root,
    progress('document')!,
    h('h1', {}, t.digitalIdHeading),
    h('p', {}, t.digitalIdQr),
    qrElement(request.cross_device.qr_svg, t.digitalIdQrAlt),
    h('p', { role: 'status' }, t.digitalIdWaiting),
    cancelLink(),
  );
  let wait = 2000;
  for (;;) {
    await sleep(wait);
    wait = Math.min(5000, wait * 1.5);
    view = await api.view().catch(() => view);
    const latest = view.digital_id?.latest;
    if (view.status !== 'in_progress') return finish();
    if (!latest || latest.request_id !== request.id || latest.status === 'pending') {
      if (Date.parse(request.expires_at) - api.clockOffset < Date.now()) return digitalIdRefused('expired');
      continue;
    }
    return latest.status === 'verified' ? selfie() : digitalIdRefused(latest.reason);
  }
}

function digitalIdRefused(reason: string | null): void {
  show(
    root,
    progress('document')!,
    h('h1', {}, t.digitalIdRefusedHeading),
    h('p', { role: 'alert' }, reason ? fill(t.digitalIdRefused, { reason }) : t.digitalIdCanceled),
    h('div', { class: 'actions' }, button(t.digitalIdTryAgain, () => void useDigitalId(), 'primary', { 'data-action': 'digital-id-again' }), button(t.digitalIdUsePhoto, () => chooseDocument(), 'secondary')),
    cancelLink(),
  );
}

/** Camera with a frame to aim at; a file upload for documents only. */
async function captureDocument(sides: { side: string; heading: string }[], i: number, problem?: string): Promise<void> {
  if (i >= sides.length) {
    stopCamera(stream);
    stream = null;
    return selfie();
  }
  const { heading } = sides[i];
  const file = h('input', { type: 'file', id: 'doc-file', accept: IMAGE_TYPES.join(','), 'aria-describedby': 'doc-file-hint' }) as HTMLInputElement;
  file.addEventListener('change', () => {
    const f = file.files?.[0];
    if (!f) return;
    if (!IMAGE_TYPES.includes(f.type)) return void captureDocument(sides, i, t.fileTypeError);
    if (f.size > MAX_IMAGE_BYTES) return void captureDocument(sides, i, t.fileSizeError);
    void sendDocument(sides, i, f);
  });
  const uploadBlock = h('div', { class: 'upload' }, h('label', { for: 'doc-file', class: 'label' }, t.uploadInstead), h('p', { class: 'hint', id: 'doc-file-hint' }, t.uploadHint), file);
  const errors = problem ? [errorSummary(t.errorSummary, problem, 'doc-file')] : [];
  if (!stream) {
    show(root, ...errors, progress('document')!, h('h1', {}, heading), h('p', {}, t.cameraIntro), uploadBlock, cancelLink());
    const cam = await openCamera('environment');
    if (cam.ok) stream = cam.stream;
    else {
      // Documents can still be uploaded; the selfie will need a camera, so offer the other device too.
      show(root, ...errors, progress('document')!, h('h1', {}, heading), uploadBlock, await noCameraBlock(), cancelLink());
      return;
    }
  }
  const video = viewfinder('document');
  show(
    root,
    ...errors,
    progress('document')!,
    h('h1', {}, heading),
    h('p', {}, t.docGuidance),
    video.parentElement!,
    h('div', { class: 'actions' }, button(t.takePhoto, async () => void preview(sides, i, await grabFrame(video)), 'primary', { 'data-action': 'take-photo' })),
    uploadBlock,
    cancelLink(),
  );
}

function preview(sides: { side: string; heading: string }[], i: number, blob: Blob): void {
  const url = URL.createObjectURL(blob);
  show(
    root,
    progress('document')!,
    h('h1', {}, sides[i].heading),
    h('img', { src: url, alt: '', class: 'preview' }),
    h('div', { class: 'actions' }, button(t.usePhoto, () => void sendDocument(sides, i, blob), 'primary', { 'data-action': 'use-photo' }), button(t.retake, () => void captureDocument(sides, i), 'secondary')),
  );
}

async function sendDocument(sides: { side: string; heading: string }[], i: number, blob: Blob): Promise<void> {
  show(root, h('h1', {}, sides[i].heading), h('p', { role: 'status' }, t.uploading));
  try {
    await api.upload({ class: 'id_document_image', side: sides[i].side }, blob);
    await captureDocument(sides, i + 1);
  } catch (err) {
    await captureDocument(sides, i, fill(t.uploadError, { message: (err as Error).message }));
  }
}

function viewfinder(kind: 'document' | 'face'): HTMLVideoElement {
  const video = h('video', { autoplay: true, playsinline: true, muted: true, 'aria-hidden': 'true' }) as HTMLVideoElement;
  video.srcObject = stream;
  h('div', { class: `viewfinder viewfinder--${kind}` }, video, h('div', { class: 'viewfinder__guide', 'aria-hidden': 'true' }));
  return video;
}

async function needCamera(onReady: () => void): Promise<void> {
  if (!stream) {
    const cam = await openCamera('user');
    if (!cam.ok) {
      show(root, h('h1', {}, t.noCameraHeading), await noCameraBlock(), h('div', { class: 'actions' }, button(t.tryAgain, () => void needCamera(onReady), 'secondary')), cancelLink());
      return;
    }
    stream = cam.stream;
  }
  onReady();
}

function selfie(): void {
  tell('step', 'selfie');
  show(root, progress('selfie')!, h('h1', {}, t.selfieHeading), h('p', {}, t.cameraIntro), cancelLink());
  void needCamera(() => {
    const video = viewfinder('face');
    show(
      root,
      progress('selfie')!,
      h('h1', {}, t.selfieHeading),
      h('p', {}, t.selfieGuidance),
      video.parentElement!,
      h(
        'div',
        { class: 'actions' },
        button(
          t.takePhoto,
          async () => {
            const blob = await grabFrame(video);
            show(root, h('h1', {}, t.selfieHeading), h('p', { role: 'status' }, t.uploading));
            await api.upload({ class: 'selfie_image' }, blob);
            if (view.steps.includes('liveness')) liveness();
            else void afterCaptures();
          },
          'primary',
          { 'data-action': 'take-photo' },
        ),
      ),
      cancelLink(),
    );
  });
}

function liveness(): void {
  tell('step', 'liveness');
  void needCamera(() => {
    const video = viewfinder('face');
    const instruction = h('p', { class: 'instruction', 'aria-live': 'assertive', id: 'instruction' }, t.livenessIntro);
    show(
      root,
      progress('liveness')!,
      h('h1', {}, t.livenessHeading),
      instruction,
      video.parentElement!,
      h('div', { class: 'actions' }, button(t.livenessStart, () => void runChallenge(video, instruction), 'primary', { 'data-action': 'start-liveness' })),
      cancelLink(),
    );
  });
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, Math.max(0, ms)));

/** Shows each server-issued step in its window and sends timed frames of it (>= 5 per second). */
async function runChallenge(video: HTMLVideoElement, instruction: HTMLElement): Promise<void> {
  root.querySelector('[data-action=start-liveness]')?.setAttribute('disabled', '');
  const challenge: Challenge = await api.challenge();
  const uploads: Promise<unknown>[] = [];
  for (const [i, step] of challenge.steps.entries()) {
    instruction.textContent = t[step.action];
    await sleep(step.opens_at - api.now() + 50);
    const until = Math.min(step.closes_at - 100, api.now() + LIVENESS_FILM_MS);
    // A slow phone encodes fewer frames than planned: film on, inside the step's window, until it has enough.
    let frames = 0;
    while (api.now() < until || (frames < LIVENESS_MIN_FRAMES && api.now() < step.closes_at - 100)) {
      frames++;
      const capturedAt = api.now();
      const blob = await grabFrame(video, 0.7, 640);
      uploads.push(api.upload({ class: 'selfie_video', step: i, nonce: step.nonce, captured_at: Math.round(capturedAt) }, blob));
      await sleep(1000 / LIVENESS_FPS - (api.now() - capturedAt));
    }
  }
  instruction.textContent = t.livenessDone;
  await Promise.all(uploads);
  await afterCaptures();
}

/** After the camera steps: the higher tiers' own steps (identity, business, the app handoff), then submit. */
async function afterCaptures(): Promise<void> {
  stopCamera(stream);
  stream = null;
  if (view.steps.includes('confirm_identity')) return confirmIdentity();
  return afterIdentity();
}

function afterIdentity(): void {
  if (view.steps.includes('business')) return businessDetails();
  if (view.steps.includes('mobile_handoff')) return void mobileHandoff();
  void submit();
}

type Field = { id: string; name: string; label: string; hint?: string; type?: string; autocomplete?: string; inputmode?: string };
type Problems = Record<string, string>;

/** Labelled text fields, each with its hint and its error (GOV.UK pattern), the summary linking to them. */
function formStep(step: string, heading: string, intro: (HTMLElement | null)[], fields: Field[], values: Record<string, string>, problems: Problems, onSubmit: (values: Record<string, string>) => void): void {
  tell('step', step);
  const inputs = fields.map((f) => {
    const describedBy = [f.hint ? `${f.id}-hint` : '', problems[f.name] ? `${f.id}-error` : ''].filter(Boolean).join(' ') || undefined;
    return h(
      'div',
      { class: problems[f.name] ? 'field field--error' : 'field' },
      h('label', { for: f.id, class: 'label' }, f.label),
      f.hint ? h('p', { class: 'hint', id: `${f.id}-hint` }, f.hint) : null,
      problems[f.name] ? h('p', { class: 'field-error', id: `${f.id}-error` }, problems[f.name]) : null,
      h('input', { class: 'input', id: f.id, name: f.name, type: f.type ?? 'text', value: values[f.name] ?? '', autocomplete: f.autocomplete ?? 'off', inputmode: f.inputmode, spellcheck: 'false', 'aria-describedby': describedBy, 'aria-invalid': problems[f.name] ? 'true' : undefined }),
    );
  });
  const form = h('form', { novalidate: true }, ...inputs, h('div', { class: 'actions' }, h('button', { type: 'submit', class: 'button button--primary' }, t.continue)));
  form.addEventListener('submit', (e) => {
    e.preventDefault();
    onSubmit(Object.fromEntries(fields.map((f) => [f.name, (form.querySelector(`#${f.id}`) as HTMLInputElement).value])));
  });
  const summary = Object.keys(problems).length ? [errorSummaryOf(t.errorSummary, fields.filter((f) => problems[f.name]).map((f) => ({ message: problems[f.name], fieldId: f.id })))] : [];
  show(root, ...summary, progress(step), h('h1', {}, heading), ...intro, form, cancelLink());
  if (summary.length) (root.querySelector('.error-summary') as HTMLElement).focus();
}

/** The server's field errors in this page's language (its code per field), its own message otherwise. */
function problemsOf(err: unknown): Problems | null {
  if (!(err instanceof ApiError) || err.fields.length === 0) return null;
  return Object.fromEntries(err.fields.map((f) => [f.field, (t as Record<string, string>)[`err_${f.field}_${f.code}`] ?? f.message]));
}

function confirmIdentity(values: Record<string, string> = {}, problems: Problems = {}): void {
  const fields: Field[] = [
    { id: 'given-names', name: 'given_names', label: t.givenNames, autocomplete: 'given-name' },
    { id: 'surname', name: 'surname', label: t.surname, autocomplete: 'family-name' },
    { id: 'date-of-birth', name: 'date_of_birth', label: t.dateOfBirth, hint: t.dateOfBirthHint, autocomplete: 'bday', inputmode: 'numeric' },
  ];
  formStep('confirm_identity', t.identityHeading, [h('p', {}, t.identityIntro), h('p', {}, t.identityMrz)], fields, values, problems, async (v) => {
    try {
      await api.confirmIdentity(v);
      afterIdentity();
    } catch (err) {
      confirmIdentity(v, problemsOf(err) ?? { surname: (err as Error).message });
    }
  });
}

function businessDetails(values: Record<string, string> = {}, problems: Problems = {}): void {
  const fields: Field[] = [
    { id: 'legal-name', name: 'legal_name', label: t.legalName, hint: t.legalNameHint, autocomplete: 'organization' },
    { id: 'country', name: 'country', label: t.country, hint: t.countryHint, autocomplete: 'country' },
    { id: 'lei', name: 'lei', label: t.lei, hint: t.leiHint },
    { id: 'uk-company-number', name: 'uk_company_number', label: t.ukCompanyNumber, hint: t.ukCompanyNumberHint },
    { id: 'abn', name: 'abn', label: t.abn, hint: t.abnHint, inputmode: 'numeric' },
    { id: 'cik', name: 'cik', label: t.cik, hint: t.cikHint, inputmode: 'numeric' },
  ];
  formStep('business', t.businessHeading, [h('p', {}, t.businessIntro)], fields, values, problems, async (v) => {
    try {
      await api.saveBusiness(Object.fromEntries(Object.entries(v).filter(([, x]) => x.trim() !== '')));
      if (view.steps.includes('mobile_handoff')) return void mobileHandoff();
      await submit();
    } catch (err) {
      businessDetails(v, problemsOf(err) ?? { legal_name: (err as Error).message });
    }
  });
}

/**
 * T5: the chip is read by the tenant's mobile app. The deep link and its QR code carry a
 * client_secret for this session; both come from this page's own origin and go nowhere else (the
 * messages to the tenant's window never include them). The page then follows the session.
 */
async function mobileHandoff(): Promise<void> {
  tell('step', 'mobile_handoff');
  const { link, qr_svg } = await api.appHandoff();
  show(
    root,
    progress('mobile_handoff'),
    h('h1', {}, t.handoffHeading),
    h('p', {}, t.handoffIntro),
    h('ol', { class: 'list' }, h('li', {}, t.handoffStep1), h('li', {}, t.handoffStep2), h('li', {}, t.handoffStep3)),
    h('div', { class: 'actions' }, h('a', { href: link, class: 'button button--primary', rel: 'noreferrer', 'data-action': 'open-app' }, t.handoffOpen)),
    h('p', {}, t.handoffQr),
    qrElement(qr_svg, t.handoffQrAlt),
    h('p', { role: 'status', id: 'handoff-status' }, t.handoffWaiting),
    cancelLink(),
  );
  let wait = 3000;
  while (view.status === 'in_progress') {
    await sleep(wait);
    wait = Math.min(10_000, wait * 1.5);
    view = await api.view().catch(() => view);
  }
  if (view.status === 'processing') return processing();
  tell('completed');
  finish();
}

function qrElement(svgText: string, label: string): HTMLElement {
  const svg = new DOMParser().parseFromString(svgText, 'image/svg+xml').documentElement;
  svg.setAttribute('role', 'img');
  svg.setAttribute('aria-label', label);
  svg.setAttribute('class', 'qr');
  return svg as unknown as HTMLElement;
}

async function submit(): Promise<void> {
  stopCamera(stream);
  stream = null;
  view = await api.submit();
  await processing();
}

/** Follows its own session until a result: backing off from 1 s to 5 s, never a tight loop. */
async function processing(): Promise<void> {
  show(root, h('h1', {}, t.processingHeading), h('p', { role: 'status' }, t.processingBody), h('div', { class: 'spinner', 'aria-hidden': 'true' }));
  let wait = 1500;
  while (TEST_UNDECIDED.includes(view.status)) {
    await sleep(wait);
    wait = Math.min(5000, wait * 1.5);
    try {
      view = await api.view();
    } catch (err) {
      if (err instanceof ApiError && err.status === 429) wait = 5000;
    }
  }
  tell('completed');
  finish();
}

function finish(): void {
  const text: Record<string, string> = {
    success: t.doneSuccess,
    failed: t.doneFailed,
    manual_review: fill(t.doneReview, { name: name() }),
    withdrawn: t.doneWithdrawn,
    expired: t.doneExpired,
  };
  show(root, h('h1', {}, t.doneHeading), h('p', { id: 'result', 'data-status': view.status }, text[view.status] ?? view.status), keepForm(), returnLink());
}

/** Statuses in which the flow has ended with a result a person can keep in their account. */
const KEEPABLE = ['success', 'failed', 'manual_review'];

/**
 * "Keep this verification in your account": a form to the service's own account pages, in a new
 * tab (signing in cannot happen inside a tenant's iframe, and this page stays as it is). The page
 * credential goes in only while the form is being sent, as proof that it comes from this page.
 */
function keepForm(): HTMLElement | null {
  // Only the browser that captured and submitted holds the keep secret; anyone else with the link sees no form.
  const keepSecret = api.keepSecret();
  if (!KEEPABLE.includes(view.status) || !keepSecret) return null;
  const credential = h('input', { type: 'hidden', name: 'credential', value: '' }) as HTMLInputElement;
  const secret = h('input', { type: 'hidden', name: 'keep_secret', value: '' }) as HTMLInputElement;
  const form = h(
    'form',
    { method: 'post', action: '/account/keep', target: '_blank', rel: 'noopener', class: 'keep' },
    h('input', { type: 'hidden', name: 'session_id', value: view.session_id }),
    h('input', { type: 'hidden', name: 'lang', value: config.locale }),
    credential,
    secret,
    h('button', { type: 'submit', class: 'button button--secondary', 'aria-describedby': 'keep-hint', 'data-action': 'keep' }, t.keepInAccount),
    h('p', { class: 'hint', id: 'keep-hint' }, fill(t.keepHint, { name: name() })),
  ) as HTMLFormElement;
  const sendWith = (value: string) => {
    credential.value = value;
    secret.value = keepSecret;
    setTimeout(() => (credential.value = secret.value = ''), 0); // the form's data is taken synchronously on submission
  };
  form.addEventListener('submit', (e) => {
    const fresh = api.credentialForKeep();
    if (fresh) return sendWith(fresh);
    e.preventDefault();
    void api.renew().then(() => {
      sendWith(api.credentialForKeep() ?? '');
      form.submit();
    });
  });
  return form;
}

/**
 * Redirect mode: the way back to the tenant, to redirect_url with session_id and status. The user
 * follows it when ready (no timed redirect: people using screen readers get to hear the result).
 * In a popup or iframe the opener or parent already got the message and closes the flow.
 */
function returnLink(): HTMLElement | null {
  const back = redirectTarget();
  if (!back || window.opener || window.parent !== window) return null;
  return h('p', {}, h('a', { href: back, class: 'button button--primary', 'data-action': 'return' }, fill(t.returnTo, { name: name() })));
}

function redirectTarget(): string | null {
  if (!view.redirect_url) return null;
  const u = new URL(view.redirect_url);
  u.searchParams.set('session_id', view.session_id);
  u.searchParams.set('status', view.status);
  return u.toString();
}

async function noCameraBlock(): Promise<HTMLElement> {
  let qr: HTMLElement;
  try {
    qr = qrElement(await api.handoffSvg(), t.qrAlt);
  } catch {
    qr = h('span', {});
  }
  return h(
    'div',
    { class: 'handoff', 'data-no-camera': 'true' },
    h('p', {}, t.noCameraBody),
    window.parent !== window ? h('p', {}, t.noCameraIframe) : null,
    h('p', {}, h('a', { href: config.hosted_url, target: '_blank', rel: 'noopener' }, config.hosted_url)),
    qr,
  );
}

void main();
