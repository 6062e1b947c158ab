/**
 * The dashboard page in jsdom (a test file under `// @vitest-environment jsdom`), served by a real control plane:
 * the document is at the server's origin and holds the page the server serves at `/`; importing `app.js` runs the
 * real screens against it. What the user does goes through clicks and typing, and what they see is read back
 * from the DOM.
 *
 * jsdom lacks a few browser features the screens use; they are filled in here, as a browser has them, and
 * nothing of ours is replaced:
 * - `fetch` with a relative URL (Node's fetch needs an absolute one): resolved against the document's URL, so the
 *   calls reach the real server; every call is recorded (method and path) to tell what the page sent;
 * - `<dialog>`: showModal, close, returnValue, and a `method="dialog"` form closing its dialog with the
 *   submitter's value;
 * - `Blob.prototype.text()`;
 * - a download (`<a download>` clicked): recorded with its file name and bytes instead of jsdom's navigation.
 * XMLHttpRequest is jsdom's own, which makes real HTTP requests (from the page's origin: see below).
 */
import { resolveObjectURL } from 'node:buffer';
import { vi } from 'vitest';

/** What jsdom's JSDOM object offers here (vitest's jsdom environment exposes it as the global `jsdom`). */
interface Jsdom {
  reconfigure(options: { url: string }): void;
  window: { _origin: string };
}

export interface Download {
  name: string;
  bytes: Buffer;
}

export interface DashboardPage {
  /** the API calls the page made with fetch, as "METHOD /path" (query left out) */
  calls: string[];
  /** how many of them the page has not read the answer of yet (and acted on it: a task later) */
  pending: number;
  /** the files the page handed to the browser to save */
  downloads: Download[];
}

const nodeFetch = globalThis.fetch;

/**
 * Puts the document at `serverUrl`, loads the page the server serves at `/` (its module script is not run by
 * jsdom) and fills in what jsdom lacks. Import `app.js` afterwards to run the dashboard.
 */
export async function loadDashboardPage(serverUrl: string): Promise<DashboardPage> {
  const { jsdom } = globalThis as unknown as { jsdom: Jsdom };
  jsdom.reconfigure({ url: `${serverUrl}/` });
  // reconfigure moves the document, not the origin jsdom's XMLHttpRequest sends from (set when the window was
  // made, localhost:3000 here), which would make every same-origin request a refused cross-origin one
  jsdom.window._origin = new URL(serverUrl).origin;
  const page: DashboardPage = { calls: [], pending: 0, downloads: [] };
  globalThis.fetch = async (input, init) => {
    const url = new URL(String(input), document.baseURI);
    page.calls.push(`${init?.method ?? 'GET'} ${decodeURIComponent(url.pathname)}`);
    page.pending++;
    const settled = () => setTimeout(() => page.pending--);
    let response: Response;
    try {
      response = await nodeFetch(url, init);
    } catch (err) {
      settled();
      throw err;
    }
    const text = response.text.bind(response);
    response.text = () => text().finally(settled);
    return response;
  };
  installDialog();
  installBlobText();
  recordDownloads(page);
  const html = await (await nodeFetch(`${serverUrl}/`)).text();
  const served = new DOMParser().parseFromString(html, 'text/html');
  document.title = served.title;
  document.head.innerHTML = served.head.innerHTML;
  document.body.innerHTML = served.body.innerHTML;
  return page;
}

/** `<dialog>` as the HTML standard has it, for what the dashboard uses. */
function installDialog(): void {
  const proto = HTMLDialogElement.prototype;
  const returnValues = new WeakMap<HTMLDialogElement, string>();
  Object.defineProperties(proto, {
    open: {
      configurable: true,
      get(this: HTMLDialogElement) {
        return this.hasAttribute('open');
      },
      set(this: HTMLDialogElement, value: boolean) {
        this.toggleAttribute('open', value);
      },
    },
    returnValue: {
      configurable: true,
      get(this: HTMLDialogElement) {
        return returnValues.get(this) ?? '';
      },
      set(this: HTMLDialogElement, value: string) {
        returnValues.set(this, String(value));
      },
    },
  });
  proto.showModal = function showModal(this: HTMLDialogElement) {
    if (this.open) throw new DOMException('the dialog is already open', 'InvalidStateError');
    if (!this.isConnected) throw new DOMException('the dialog is not in a document', 'InvalidStateError');
    this.open = true;
  };
  proto.close = function close(this: HTMLDialogElement, returnValue?: string) {
    if (!this.open) return;
    this.open = false;
    if (returnValue !== undefined) this.returnValue = returnValue;
    // the close event is queued as a task
    setTimeout(() => this.dispatchEvent(new Event('close')));
  };
  document.addEventListener('submit', (event) => {
    const form = event.target;
    if (event.defaultPrevented || !(form instanceof HTMLFormElement) || form.method !== 'dialog') return;
    const submitter = (event as SubmitEvent).submitter;
    const value =
      submitter instanceof HTMLButtonElement && submitter.hasAttribute('value') ? submitter.value : undefined;
    form.closest('dialog')?.close(value);
    event.preventDefault(); // closing the dialog is the whole of a method="dialog" submission; jsdom would try to submit it
  });
}

/** `Blob.prototype.text()` (every browser has it; jsdom 27 does not), read by jsdom's FileReader. */
function installBlobText(): void {
  if (typeof Blob.prototype.text === 'function') return;
  Blob.prototype.text = function text(this: Blob) {
    return new Promise<string>((resolve, reject) => {
      const reader = new FileReader();
      reader.onload = () => resolve(String(reader.result));
      reader.onerror = () => reject(reader.error ?? new Error('the blob could not be read'));
      reader.readAsText(this);
    });
  };
}

/** Records each file the page hands to the browser (`<a download href="blob:...">` clicked). */
function recordDownloads(page: DashboardPage): void {
  document.addEventListener(
    'click',
    (event) => {
      const link = event.target;
      if (!(link instanceof HTMLAnchorElement) || !link.hasAttribute('download')) return;
      event.preventDefault(); // jsdom does not navigate; a browser saves the file
      const blob = resolveObjectURL(link.href);
      if (blob === undefined) throw new Error(`${link.href} is no object URL`);
      void blob.arrayBuffer().then((bytes) => page.downloads.push({ name: link.download, bytes: Buffer.from(bytes) }));
    },
    true,
  );
}

/** Waits (bounded) until `check` passes, returning its value. */
export function until<T>(check: () => T, timeout = 10_000): Promise<T> {
  return vi.waitFor(check, { timeout, interval: 20 });
}

/** The text of an element as read on screen: its pieces of text one space apart (cells, badges, labels). */
export function textOf(element: Element | null | undefined): string {
  if (!element) return '';
  const walker = document.createTreeWalker(element, NodeFilter.SHOW_TEXT);
  const pieces: string[] = [];
  for (let node = walker.nextNode(); node !== null; node = walker.nextNode()) pieces.push(node.nodeValue ?? '');
  return pieces.join(' ').replace(/\s+/g, ' ').trim();
}

/** The element matching `selector` whose text is (or, with a RegExp, matches) `text`; throws when there is none. */
export function byText<E extends Element = HTMLElement>(
  selector: string,
  text: string | RegExp,
  within: ParentNode = document,
): E {
  const found = [...within.querySelectorAll<E>(selector)].find((e) =>
    typeof text === 'string' ? textOf(e) === text : text.test(textOf(e)),
  );
  if (found === undefined) throw new Error(`no ${selector} "${String(text)}" in: ${textOf(document.body)}`);
  return found;
}

/** The texts of the notices shown (`kind` error or ok). */
export function notices(kind: 'error' | 'ok', within: ParentNode = document): string[] {
  return [...within.querySelectorAll(`.notice.${kind}`)].map((n) => textOf(n));
}

/** Types into a text field as a user does (the field's value, then its input and change events). */
export function type(field: Element | null, text: string): void {
  if (!(field instanceof HTMLInputElement || field instanceof HTMLSelectElement)) {
    throw new Error(`${String(field)} is no field`);
  }
  field.focus();
  field.value = text;
  field.dispatchEvent(new Event('input', { bubbles: true }));
  field.dispatchEvent(new Event('change', { bubbles: true }));
}

/** Clicks an element (a submit button submits its form, as in a browser). */
export function click(element: Element | null): void {
  if (!(element instanceof HTMLElement)) throw new Error(`${String(element)} cannot be clicked`);
  element.click();
}

/** Opens a menu (its summary) and chooses an item. */
export function chooseFromMenu(menu: HTMLDetailsElement, item: string): void {
  click(menu.querySelector('summary'));
  if (!menu.open) throw new Error('the menu did not open');
  click(byText('button[role="menuitem"]', item, menu));
}

/** The open confirm dialog (waits for it); answers it by clicking `answer` (e.g. Cancel). */
export async function answerDialog(answer: string): Promise<string> {
  const dialog = await until(() => {
    const open = document.querySelector('dialog[open]');
    if (open === null) throw new Error('no dialog is open');
    return open;
  });
  const question = textOf(dialog.querySelector('h2'));
  click(byText('button', answer, dialog));
  await until(() => {
    if (document.querySelector('dialog') !== null) throw new Error('the dialog is still there');
  });
  return question;
}
