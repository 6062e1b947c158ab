/**
 * The dashboard in a real browser: Debian's Chromium driven by playwright-core, against a real control plane.
 *
 * Where Chromium is missing the browser suites are skipped with a message saying so, except under CI=true, where
 * `.ci/run` installs it and its absence fails them. A tab records every API answer ≥ 400 and every console error,
 * saves screenshots at 1280×800 and 390×844 under `control-plane/test-output/screenshots/` (gitignored), checks
 * the page with axe-core, and walks it with the Tab key.
 */
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';
import type { Browser, BrowserContext, Page } from 'playwright-core';

const CHROMIUM = process.env['OUTPOST_TEST_CHROMIUM'] ?? '/usr/bin/chromium';
const CHROMIUM_FLAGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--no-first-run',
  '--disable-quic',
];
export const SCREENSHOT_DIR = fileURLToPath(new URL('../../../test-output/screenshots/', import.meta.url));
const BUILT_DASHBOARD = fileURLToPath(new URL('../../../dist/web/assets/app.js', import.meta.url));
const require = createRequire(import.meta.url);

export const VIEWPORTS = { desktop: { width: 1280, height: 800 }, phone: { width: 390, height: 844 } } as const;

/**
 * Why the browser suites cannot run here ('' when they can). Under CI=true a missing browser or build throws.
 */
export function browserUnavailable(): string {
  const missing = !existsSync(CHROMIUM)
    ? `no Chromium at ${CHROMIUM} (apt-get install chromium, or set OUTPOST_TEST_CHROMIUM)`
    : !existsSync(BUILT_DASHBOARD)
      ? `the dashboard is not built (${BUILT_DASHBOARD}): run npm run build`
      : '';
  if (missing === '') return '';
  if (process.env['CI'] === 'true')
    throw new Error(`the dashboard's browser tests cannot run under CI=true: ${missing}`);
  console.warn(`SKIPPED: the dashboard's browser tests: ${missing}`);
  return missing;
}

export async function launchBrowser(): Promise<Browser> {
  // launch() gives each run a fresh temporary profile
  return chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_FLAGS, headless: true, timeout: 60_000 });
}

/** A browser tab on the dashboard with what it recorded. */
export class DashboardTab {
  /** API answers ≥ 400, as "STATUS METHOD path" */
  readonly failedRequests: string[] = [];
  readonly consoleErrors: string[] = [];
  /** the bodies of the watch requests made (`POST …:watch`), with their path */
  readonly watchRequests: { path: string; body: Record<string, unknown> }[] = [];

  private constructor(
    readonly context: BrowserContext,
    readonly page: Page,
    readonly serverUrl: string,
  ) {
    page.on('response', (response) => {
      if (response.status() >= 400) {
        const url = new URL(response.url());
        this.failedRequests.push(`${response.status()} ${response.request().method()} ${url.pathname}`);
      }
    });
    page.on('request', (request) => {
      const url = new URL(request.url());
      if (request.method() !== 'POST' || !url.pathname.endsWith(':watch')) return;
      this.watchRequests.push({
        path: url.pathname,
        body: JSON.parse(request.postData() ?? '{}') as Record<string, unknown>,
      });
    });
    page.on('console', (message) => {
      if (message.type() === 'error') this.consoleErrors.push(message.text());
    });
    page.on('pageerror', (error) => this.consoleErrors.push(`uncaught: ${error.message}`));
  }

  static async open(browser: Browser, serverUrl: string, viewport = VIEWPORTS.desktop): Promise<DashboardTab> {
    const context = await browser.newContext({ viewport, acceptDownloads: true });
    context.setDefaultTimeout(30_000);
    const page = await context.newPage();
    const tab = new DashboardTab(context, page, serverUrl);
    await page.goto(`${serverUrl}/`);
    return tab;
  }

  /** Signs in as a user does: the field labelled "API key", then Enter. */
  async signIn(apiKey: string): Promise<void> {
    const field = this.page.getByLabel('API key');
    await field.fill(apiKey);
    await field.press('Enter');
    await this.page.getByRole('button', { name: 'Forget API key' }).waitFor();
  }

  /** Forgets what was recorded so far (e.g. the refused key of a sign-in test). */
  clearRecords(): void {
    this.failedRequests.length = 0;
    this.consoleErrors.length = 0;
  }

  /** Saves the page at both sizes as `<name>-1280x800.png` and `<name>-390x844.png`; returns the paths. */
  async screenshots(name: string): Promise<string[]> {
    mkdirSync(SCREENSHOT_DIR, { recursive: true });
    const paths: string[] = [];
    const before = this.page.viewportSize();
    for (const size of [VIEWPORTS.desktop, VIEWPORTS.phone]) {
      await this.page.setViewportSize(size);
      const path = join(SCREENSHOT_DIR, `${name}-${size.width}x${size.height}.png`);
      await this.page.screenshot({ path, fullPage: true });
      paths.push(path);
    }
    if (before) await this.page.setViewportSize(before);
    return paths;
  }

  /** axe-core's violations of impact serious or critical, as "id: help (n nodes)". */
  async seriousAccessibilityViolations(): Promise<string[]> {
    const source = readFileSync(require.resolve('axe-core/axe.min.js'), 'utf8');
    // evaluated through the debugging protocol, which the page's script-src policy does not govern
    await this.page.evaluate(source);
    const violations = await this.page.evaluate(async () => {
      const axe = (globalThis as unknown as { axe: AxeLike }).axe;
      const result = await axe.run(document, { resultTypes: ['violations'] });
      return result.violations.map((v) => ({ id: v.id, impact: v.impact, help: v.help, nodes: v.nodes.length }));
    });
    return violations
      .filter((v) => v.impact === 'serious' || v.impact === 'critical')
      .map((v) => `${v.id}: ${v.help} (${v.nodes} nodes)`);
  }

  /**
   * The enabled, visible controls of the page that pressing Tab from the top never focuses (described by their
   * tag and text). Empty when every control is reachable by keyboard.
   */
  async controlsUnreachableByKeyboard(): Promise<string[]> {
    const count = await this.page.evaluate(() => {
      const controls = [
        ...document.querySelectorAll<HTMLElement>('a[href], button, input, select, textarea, summary, [tabindex]'),
      ].filter((el) => {
        const disabled = (el as HTMLButtonElement).disabled === true;
        const hidden = el.closest('[hidden], dialog:not([open])') !== null || el.getClientRects().length === 0;
        return !disabled && !hidden && el.tabIndex >= 0 && el.closest('details:not([open]) > :not(summary)') === null;
      });
      // a radio group is one stop of the Tab key (its other buttons are reached with the arrow keys)
      const groups = new Map<string, string>();
      controls.forEach((el, i) => {
        const radio = el instanceof HTMLInputElement && el.type === 'radio' ? `${el.form?.id ?? ''}/${el.name}` : '';
        const mark = radio === '' ? String(i) : (groups.get(radio) ?? String(i));
        if (radio !== '') groups.set(radio, mark);
        el.setAttribute('data-keyboard-check', mark);
      });
      (document.activeElement as HTMLElement | null)?.blur();
      return new Set(controls.map((el) => el.getAttribute('data-keyboard-check'))).size;
    });
    const reached = new Set<string>();
    for (let i = 0; i < count * 2 + 10 && reached.size < count; i++) {
      await this.page.keyboard.press('Tab');
      const mark = await this.page.evaluate(() => document.activeElement?.getAttribute('data-keyboard-check'));
      if (mark !== null && mark !== undefined) reached.add(mark);
    }
    return this.page.evaluate(
      (seen) => {
        const missing = [...document.querySelectorAll<HTMLElement>('[data-keyboard-check]')]
          .filter((el) => !seen.includes(el.getAttribute('data-keyboard-check') ?? ''))
          .map((el) => {
            const named = el.getAttribute('name') ?? el.getAttribute('type') ?? '';
            return `${el.tagName.toLowerCase()}${named ? `[${named}]` : ''} "${(el.textContent ?? '').trim().slice(0, 40)}"`;
          });
        document.querySelectorAll('[data-keyboard-check]').forEach((el) => el.removeAttribute('data-keyboard-check'));
        return missing;
      },
      [...reached],
    );
  }

  async close(): Promise<void> {
    await this.context.close();
  }
}

interface AxeLike {
  run(
    context: Document,
    options: { resultTypes: string[] },
  ): Promise<{ violations: { id: string; impact?: string | null; help: string; nodes: unknown[] }[] }>;
}
