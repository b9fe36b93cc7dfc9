// The OpenAPI document's paths of the web page: not an API, but routes the
// service serves, so the document lists them (every served route is
// documented). Their answers are HTML, text or assets, not JSON.
import { errorSchema, headerRef, notFoundAndMethod, rateLimitHeaders, responseRef, unlimitedJsonResponse } from './openapi-components.js';
import type { ScanType } from './scan-type.js';

const htmlPage = (description: string) => ({
  description: `${description} Sent with \`Cache-Control: no-store\` and a strict Content-Security-Policy.`,
  headers: rateLimitHeaders,
  content: { 'text/html': { schema: { type: 'string' } } },
});

const TITLES: Readonly<Record<ScanType, string>> = { fast: 'Fast', deep: 'Deep', udp: 'Udp' };

function scanFormPath(type: ScanType) {
  const title = TITLES[type];
  return {
    post: {
      operationId: `pageStart${title}Scan`,
      tags: ['page'],
      summary: `The page's form without JavaScript: start a ${type} scan of the caller's address`,
      description:
        `Starts (or joins) a ${type} scan of the caller's address, with the same limits as POST /v1/${type}, and ` +
        `redirects to GET /scan/${type}. Posts from another site (Sec-Fetch-Site other than same-origin, or an ` +
        'Origin of another host) are refused with 403. Refusals are HTML pages with the status of the JSON API.',
      responses: {
        '303': { description: `Started or joined; see GET /scan/${type}.`, headers: { ...rateLimitHeaders, Location: { schema: { type: 'string' } } } },
        '403': htmlPage('A cross-site post, or the address is opted out.'),
        '422': htmlPage('The address is non-routable.'),
        '429': {
          ...htmlPage('Too many requests: the page says how long to wait.'),
          headers: { ...rateLimitHeaders, 'Retry-After': headerRef('Retry-After') },
        },
        '404': responseRef('NotFound'),
        '405': responseRef('MethodNotAllowed'),
        '503': responseRef('Unavailable'),
      },
    },
    get: {
      operationId: `pageShow${title}Scan`,
      tags: ['page'],
      summary: `The caller's ${type} scan as a page that refreshes itself until the scan ends`,
      responses: { '200': htmlPage('The scan, whatever its status.'), ...notFoundAndMethod },
    },
  };
}

export const pagePaths = {
  '/': {
    get: {
      operationId: 'getPage',
      tags: ['page'],
      summary: 'The web page: scan yourself from a browser',
      description:
        'HTML when the Accept header asks for it (browsers); otherwise a plain-text quick start with the ' +
        "caller's address. Loading it starts nothing: scans start only on a click.",
      responses: {
        '200': {
          ...htmlPage('The page, or the quick start.'),
          content: { 'text/html': { schema: { type: 'string' } }, 'text/plain': { schema: { type: 'string' } } },
        },
        ...notFoundAndMethod,
      },
    },
  },
  '/assets/{file}': {
    get: {
      operationId: 'getAsset',
      tags: ['page'],
      summary: "The page's script, stylesheet and icon, by hashed name",
      description:
        'Cached for a year (`immutable`), revalidated by ETag (304), brotli- or gzip-compressed as accepted. ' +
        'A GET is never counted against the edge limit, so it has no X-RateLimit-* headers.',
      parameters: [{ name: 'file', in: 'path', required: true, schema: { type: 'string' }, description: 'The hashed file name the page links.' }],
      responses: {
        '200': { description: 'The asset.', content: { 'text/javascript': {}, 'text/css': {}, 'image/svg+xml': {} } },
        '304': { description: 'The ETag in If-None-Match is current.' },
        '404': unlimitedJsonResponse('No asset of that name (an old hash: load the page again).', errorSchema(['not_found'])),
        '405': responseRef('MethodNotAllowed'),
      },
    },
  },
  '/scan/fast': scanFormPath('fast'),
  '/scan/deep': scanFormPath('deep'),
  '/scan/udp': scanFormPath('udp'),
};
