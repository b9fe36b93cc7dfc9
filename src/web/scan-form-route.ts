// The page without JavaScript: POST /scan/{fast,deep,udp} (the page's form)
// starts or joins a scan of the caller and answers 303 to GET
// /scan/{fast,deep,udp}, a page that shows the scan and refreshes itself until
// it ends. The form's `regions` field (a scan from every region) is carried
// on as `?regions=`, the query the API takes. A form posted from another
// site is refused: a page elsewhere must not make a visitor's browser start
// scans.
import type { RegionsAsked } from '../api/regions-asked.js';
import type { ScanType } from '../api/scan-type.js';
import type { Headers } from '../http/exchange.js';
import { readRegionsParam, regionsAskedFrom, regionsAskedOf } from '../http/regions-param.js';
import type { RouteContext } from '../http/route-context.js';
import type { Route } from '../http/routes.js';
import { readFormBody } from './form-body.js';
import { answerPage } from './page-answer.js';
import { htmlHeaders } from './page-headers.js';
import { refusalPage } from './refusal-page.js';
import { renderRefusalPage, renderResultPage } from './result-page-html.js';
import type { WebAssets } from './web-assets.js';

const REDIRECT_HEADERS: Headers = { 'Content-Type': 'text/plain; charset=utf-8', 'Cache-Control': 'no-store' };

/**
 * Whether a form post comes from a page of this origin, by Sec-Fetch-Site and
 * Origin (either may be absent: old browsers). A browser's own
 * `Sec-Fetch-Site: same-origin` settles it: under the page's
 * `Referrer-Policy: no-referrer` the same browser sends `Origin: null`.
 */
export function isSameSitePost(secFetchSite: string, origin: string, host: string): boolean {
  if (secFetchSite === 'same-origin') return true;
  if (secFetchSite !== '' && secFetchSite !== 'none') return false;
  if (origin === '') return true;
  try {
    return new URL(origin).host === host.toLowerCase();
  } catch {
    return false; // `null` (a sandboxed or privacy-sensitive context) or garbage
  }
}

/** The regions a form asked for; undefined for a scan from one place; `invalid_regions` when malformed. */
export function formRegions(value: string | null): RegionsAsked | undefined {
  return value === null || value === '' ? undefined : regionsAskedFrom(value);
}

/** The result page of a scan: the route's path, with the regions it looks from. */
export function resultPath(path: string, regionsAsked: RegionsAsked | undefined): string {
  return regionsAsked === undefined ? path : `${path}?regions=${encodeURIComponent(regionsAsked)}`;
}

export function scanFormRoute(scanType: ScanType, assets: WebAssets): Route {
  const headers = htmlHeaders([]);
  const errorPage = refusalPage(assets);
  return {
    methods: ['GET', 'POST'],
    register: (context: RouteContext, path) => {
      context.app.post(path, (res, req) => {
        const sameSite = isSameSitePost(req.getHeader('sec-fetch-site'), req.getHeader('origin'), req.getHeader('host'));
        const form = readFormBody(res);
        context.handle(
          res,
          req,
          'POST',
          path,
          async (exchange, ip, limits) => {
            if (!sameSite) {
              answerPage(
                exchange,
                '403 Forbidden',
                renderRefusalPage(assets, 'cross_site', 'cross-site form posts are refused', undefined).text,
                headers,
                limits,
              );
              return '403';
            }
            const fields = await form(exchange);
            if (fields === null) return 'aborted';
            const regionsAsked = formRegions(fields.get('regions'));
            await context.startScan(ip, scanType, 'page', undefined, undefined, regionsAsked);
            const location = resultPath(path, regionsAsked);
            exchange.write('303 See Other', Buffer.from(`See ${location}\n`), REDIRECT_HEADERS, limits, { Location: location });
            return '303';
          },
          { errorPage },
        );
      });
      context.get(path, (res, req) => {
        const regionsParam = readRegionsParam(req);
        context.handle(
          res,
          req,
          'GET',
          path,
          async (exchange, ip, limits) => {
            const regionsAsked = regionsAskedOf(regionsParam);
            const body = await context.service.result(ip, scanType, regionsAsked);
            answerPage(exchange, '200 OK', renderResultPage(assets, body, regionsAsked).text, headers, limits);
            return '200';
          },
          { errorPage },
        );
      });
    },
  };
}
