/**
 * Debian's chromium driven by puppeteer-core: the browser tests' one way to start a browser.
 * Screenshots and pages they save go to tests/artifacts/ (not committed).
 */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';

import puppeteer, { type Browser, type Page } from 'puppeteer-core';

import { ROOT } from '../helpers/cli.js';
import { CHROMIUM } from '../helpers/requires.js';

/** The page's globals, for functions that page.evaluate runs in the browser (no DOM lib here). */
export type PageGlobals = any;

export const ARTIFACTS = join(ROOT, 'tests', 'artifacts');

export function artifactsDir(): string {
  mkdirSync(ARTIFACTS, { recursive: true });
  return ARTIFACTS;
}

export function launch(): Promise<Browser> {
  return puppeteer.launch({ executablePath: CHROMIUM, args: ['--no-sandbox', '--headless=new'], headless: true });
}

export interface Watched {
  errors: string[];
  requests: string[];
}

/** Console errors, page errors, failed requests and every URL the page asks for. */
export function watch(page: Page): Watched {
  const out: Watched = { errors: [], requests: [] };
  page.on('console', (m) => {
    if (m.type() === 'error') out.errors.push(m.text());
  });
  page.on('pageerror', (e) => out.errors.push(String(e)));
  page.on('requestfailed', (r) => out.errors.push(`request failed: ${r.url()} ${r.failure()?.errorText ?? ''}`));
  page.on('request', (r) => out.requests.push(r.url()));
  return out;
}
