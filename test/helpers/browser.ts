import fs from 'node:fs';
import { chromium, type Browser, type LaunchOptions } from 'playwright-core';
import { packagedChromium } from './packaged-chromium';

/** Debian's `chromium` package puts it here. */
const SYSTEM_CHROMIUM = '/usr/bin/chromium';

/** Flags every browser test wants: root in a container needs no sandbox, and nothing phones home. */
const BASE_ARGS = ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'];

async function chromiumToLaunch(): Promise<{ executablePath: string; env?: Record<string, string> }> {
  if (process.env.CHROMIUM_PATH) return { executablePath: process.env.CHROMIUM_PATH };
  if (process.env.IVS_IGNORE_SYSTEM_CHROMIUM !== '1' && fs.existsSync(SYSTEM_CHROMIUM)) return { executablePath: SYSTEM_CHROMIUM };
  return packagedChromium();
}

/**
 * Launches headless Chromium through playwright-core, which downloads no browser: `CHROMIUM_PATH` when
 * set, else Debian's `/usr/bin/chromium` when installed, else the Chromium inside the
 * `@sparticuz/chromium` devDependency, so the browser tests run on a machine with Node alone.
 * `IVS_IGNORE_SYSTEM_CHROMIUM=1` skips Debian's, to test that last case (docs/operations.md, "The browser tests' Chromium").
 * `options.args` come after the base flags (the fake camera's, for example).
 */
export async function launchChromium(options: LaunchOptions = {}): Promise<Browser> {
  const { executablePath, env } = await chromiumToLaunch();
  const browser = await chromium.launch({
    ...options,
    executablePath,
    headless: true,
    args: [...BASE_ARGS, ...(options.args ?? [])],
    env: env ? { ...process.env, ...env, ...options.env } : options.env,
  });
  // Every wait of a page is for an event (a heading, a URL): its ceiling only bounds a hang, and Playwright's 30 s
  // default is one a loaded 2-core machine can reach while the server decides a session (issue 47).
  const newContext = browser.newContext.bind(browser);
  const newPage = browser.newPage.bind(browser);
  browser.newContext = async (o) => {
    const context = await newContext(o);
    context.setDefaultTimeout(BROWSER_WAIT_CEILING_MS);
    return context;
  };
  browser.newPage = async (o) => {
    const page = await newPage(o);
    page.setDefaultTimeout(BROWSER_WAIT_CEILING_MS);
    return page;
  };
  return browser;
}

/** How long a page waits for an element, a navigation or a function before the test fails: a hang bound only. */
export const BROWSER_WAIT_CEILING_MS = 60_000;
