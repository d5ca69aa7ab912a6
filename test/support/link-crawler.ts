/**
 * A link crawler for the server-rendered pages: from some start pages (and pages that answered a form
 * post, given as HTML), it follows every same-origin `<a href>` and checks that each one opens a page:
 * 200, or a deliberate redirect (301/302/303/307/308) to a page that answers 200 — never a 404, 405 or
 * 500. Pages inside `within` are crawled in turn (their links followed); a link that leaves it is only
 * checked. One crawler for the portal, the dashboard and the checkout pages: it only needs a
 * way to GET a path with the visitor's cookies (`CrawlFetch`), from supertest (HTTP level) or from a
 * browser's request context (playwright-core).
 */
export interface CrawlResponse {
  status: number;
  /** The Location header of a redirect. */
  location?: string | null;
  /** The body of an HTML page (empty for anything else). */
  html: string;
}
/** GET one same-origin path (with its query) as the visitor, without following redirects. */
export type CrawlFetch = (path: string) => Promise<CrawlResponse>;

export interface BrokenLink {
  /** The page the link is on. */
  from: string;
  href: string;
  status: number;
  /** Where a redirect chain ended, when it did not end in 200. */
  via?: string[];
}

export interface CrawlOptions {
  /** Paths whose links are followed in turn (e.g. `(p) => p.startsWith('/dashboard')`). */
  within: (path: string) => boolean;
  /** Links never requested (e.g. a link that would use up a single-use token); checked by nothing. */
  skip?: (path: string) => boolean;
  /** Pages already in hand (the answer to a refused form post), crawled like the start pages. */
  pages?: Array<{ path: string; html: string }>;
  /** A guard against a crawl that never ends (an id in every link). Default 2,000 requests. */
  maxRequests?: number;
  /**
   * A deliberate answer other than 200 that is still a page (a used-up payment link's 410 page): not
   * broken, and its links are followed. Never a 404, 405 or 5xx.
   */
  accept?: (path: string, status: number) => boolean;
}

export interface CrawlResult {
  /** Every path requested and its final status (after redirects). */
  visited: Map<string, number>;
  broken: BrokenLink[];
  /** Links checked (each distinct href once). */
  links: number;
}

const REDIRECTS = new Set([301, 302, 303, 307, 308]);

/** Every `<a href>` of a page, with the HTML entities of an attribute decoded. */
export function linksOf(html: string): string[] {
  return [...html.matchAll(/<a\b[^>]*?\shref="([^"]*)"/gi)].map((m) => m[1].replace(/&amp;/g, '&').replace(/&#39;/g, "'").replace(/&quot;/g, '"'));
}

/** The same-origin path (with query, without fragment) an href leads to from `from`; null for another origin or scheme. */
export function resolveHref(href: string, from: string, origin = 'http://crawl.invalid'): string | null {
  if (href === '' || href.startsWith('#')) return null;
  let url: URL;
  try {
    url = new URL(href, new URL(from, origin));
  } catch {
    return null;
  }
  if (url.origin !== origin) return null;
  return url.pathname + url.search;
}

export async function crawlLinks(fetch: CrawlFetch, starts: string[], options: CrawlOptions, origin = 'http://crawl.invalid'): Promise<CrawlResult> {
  const max = options.maxRequests ?? 2000;
  const visited = new Map<string, number>();
  const broken: BrokenLink[] = [];
  const queue: Array<{ path: string; html: string }> = [];
  let requests = 0;
  let links = 0;
  const checked = new Set<string>();

  /** GET a path, following deliberate redirects to their end. */
  const open = async (path: string): Promise<{ status: number; html: string; chain: string[]; final: string }> => {
    const chain: string[] = [];
    let current = path;
    for (let hop = 0; hop < 5; hop++) {
      if (++requests > max) throw new Error(`crawl exceeded ${max} requests: ${[...visited.keys()].slice(-5).join(', ')}`);
      const res = await fetch(current);
      if (REDIRECTS.has(res.status) && res.location) {
        const next = resolveHref(res.location, current, origin);
        chain.push(`${res.status} ${current}`);
        if (!next) return { status: res.status, html: '', chain, final: res.location };
        current = next;
        continue;
      }
      return { status: res.status, html: res.html, chain, final: current };
    }
    return { status: 310, html: '', chain, final: current };
  };

  const visit = async (path: string, from: string | null) => {
    if (visited.has(path)) {
      const status = visited.get(path)!;
      if (status !== 200 && from) broken.push({ from, href: path, status });
      return;
    }
    const { status, html, chain, final } = await open(path);
    const fine = status === 200 || (!!html && status !== 404 && status !== 405 && status < 500 && !!options.accept?.(final, status));
    visited.set(path, fine ? 200 : status);
    if (!fine) {
      broken.push({ from: from ?? '(start)', href: path, status, via: chain.length ? [...chain, final] : undefined });
      return;
    }
    if (options.within(final) && !visited.has(`crawled:${final}`)) {
      visited.set(`crawled:${final}`, 200);
      queue.push({ path: final, html });
    }
  };

  for (const page of options.pages ?? []) queue.push(page);
  for (const start of starts) await visit(start, null);
  while (queue.length) {
    const page = queue.shift()!;
    for (const href of linksOf(page.html)) {
      const path = resolveHref(href, page.path, origin);
      if (!path || options.skip?.(path)) continue;
      if (!checked.has(path)) {
        checked.add(path);
        links++;
      }
      await visit(path, page.path);
    }
  }
  for (const key of [...visited.keys()]) if (key.startsWith('crawled:')) visited.delete(key);
  return { visited, broken, links };
}

/** A crawl fetch over supertest (test/support/page-session.ts's visitor keeps the cookies). */
export function fetchWith(visitor: { get(path: string): Promise<{ status: number; headers: Record<string, any>; text: string }> }): CrawlFetch {
  return async (path) => {
    const res = await visitor.get(path);
    const type = String(res.headers['content-type'] ?? '');
    return { status: res.status, location: res.headers.location ?? null, html: type.includes('text/html') ? res.text ?? '' : '' };
  };
}

/** Readable lines for a failed expectation: `404 /dashboard/new?locale=en  (linked from /dashboard/new/price)`. */
export const describeBroken = (broken: BrokenLink[]) => broken.map((b) => `${b.status} ${b.href}  (linked from ${b.from})${b.via ? ` via ${b.via.join(' -> ')}` : ''}`);
