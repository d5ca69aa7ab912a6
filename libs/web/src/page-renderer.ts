import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Eta } from 'eta';
import type { FastifyReply } from 'fastify';
import { type Catalog, htmlLang, type Locale, type Translate, translator } from './i18n.js';
import { cardBrand, formatDate, formatDateTime, formatMoney } from './format.js';
import { applyPageSecurityHeaders, type PageSecurityOptions } from './security.js';

/**
 * The directory `relative` to a module, in the sources or in the build (`npm run build` copies
 * `libs/<lib>/views` and `static` beside the compiled code; see scripts/copy-assets.mjs).
 */
export function assetDir(moduleUrl: string, relative: string): string {
  const dir = fileURLToPath(new URL(relative, moduleUrl));
  if (!existsSync(dir)) throw new Error(`page assets missing: ${dir} (run npm run build to copy views and static files)`);
  return dir;
}

const LAYOUT_VIEWS = assetDir(import.meta.url, '../views');
const layoutEta = new Eta({ views: LAYOUT_VIEWS, cache: true, autoEscape: true, autoTrim: false });

export interface PageOptions extends PageSecurityOptions {
  locale: Locale;
  /** `<title>` and the page's first heading. */
  title: string;
  status?: number;
  /** Shown in the header (the merchant's name). */
  brand?: string | null;
  /** Test-mode banner. */
  test?: boolean;
  /** Path (with query) of this page, for the language switch; omitted: no switch. */
  path?: string | null;
}

/** What every template receives besides its own data. */
export interface PageHelpers {
  t: Translate;
  locale: Locale;
  money: (amount: string, currency: string) => string;
  date: (iso: string | null | undefined) => string;
  /** A date in a list's cell: `23 de nov de 2026` / `Nov 23, 2026`. */
  shortDate: (iso: string | null | undefined) => string;
  /** A timestamp with its time of day; '' for anything that is not an ISO 8601 timestamp. */
  dateTime: (iso: string | null | undefined) => string;
  /** A card brand as people write it (`visa` → `Visa`). */
  cardBrand: (brand: string | null | undefined) => string;
}

/**
 * Renders server-side HTML pages: a page library's own Eta views (its `views/` directory, `it` is the
 * data plus the helpers), wrapped in the shared layout (lang attribute, skip link, header, test-mode
 * banner, language switch, the stylesheet), sent with the page security headers (strict CSP, no-store).
 * Templates escape every `<%= %>` output.
 */
export class PageRenderer {
  private readonly eta: Eta;

  constructor(
    viewsDir: string,
    private readonly catalog: Catalog,
  ) {
    this.eta = new Eta({ views: viewsDir, cache: true, autoEscape: true, autoTrim: false });
  }

  helpers(locale: Locale): PageHelpers {
    return {
      t: translator(locale, this.catalog),
      locale,
      money: (amount, currency) => formatMoney(amount, currency, locale),
      date: (iso) => formatDate(iso, locale),
      shortDate: (iso) => formatDate(iso, locale, 'short'),
      dateTime: (iso) => formatDateTime(iso, locale),
      cardBrand,
    };
  }

  /** The page as a string (tests, e-mails). */
  renderToString(view: string, data: Record<string, unknown>, options: PageOptions): string {
    const helpers = this.helpers(options.locale);
    const body = this.eta.render(view, { ...data, ...helpers });
    return layoutEta.render('layout', {
      ...helpers,
      lang: htmlLang(options.locale),
      title: options.title,
      brand: options.brand ?? null,
      test: options.test ?? false,
      switchTo: options.path ? languageSwitch(options.path, options.locale) : null,
      body,
    });
  }

  send(reply: FastifyReply, view: string, data: Record<string, unknown>, options: PageOptions): FastifyReply {
    const html = this.renderToString(view, data, options);
    applyPageSecurityHeaders(reply, options);
    return reply.status(options.status ?? 200).type('text/html; charset=utf-8').send(html);
  }
}

/** The same path in the other language (the `locale` query parameter replaced). */
function languageSwitch(path: string, locale: Locale): { href: string; label: string; lang: string } {
  const url = new URL(path, 'http://page.invalid');
  const other: Locale = locale === 'en' ? 'es-CO' : 'en';
  url.searchParams.set('locale', other === 'en' ? 'en' : 'es');
  return { href: url.pathname + url.search, label: other === 'en' ? 'English' : 'Español', lang: other === 'en' ? 'en' : 'es-CO' };
}

/** The stylesheet, read once (served at `{prefix}/assets/pages.css`). */
export const PAGES_CSS = readFileSync(`${assetDir(import.meta.url, '../static')}/pages.css`, 'utf8');
/** The pages' icon (SVG), also answered at `/favicon.ico`, which browsers ask for on their own. */
export const FAVICON_SVG = readFileSync(`${assetDir(import.meta.url, '../static')}/favicon.svg`, 'utf8');
