// GET /: the page for a browser, a plain-text quick start for anything
// that does not ask for HTML. It starts nothing: a crawler or a link
// prefetcher may load it freely; scans start only on a click. On a
// cluster's API node the page asks which regions are live first, so it
// offers a scan from every region only where there are several.
import type { Route } from '../http/routes.js';
import { answerPage } from './page-answer.js';
import { htmlHeaders, TEXT_HEADERS } from './page-headers.js';
import { renderPage } from './page-html.js';
import { type PageSettings, pageData } from './page-settings.js';
import { originOf, quickStart, wantsHtml } from './quick-start.js';
import { refusalPage } from './refusal-page.js';
import type { WebAssets } from './web-assets.js';

export function pageRoute(settings: PageSettings, assets: WebAssets): Route {
  const headers = htmlHeaders(settings.connectOrigins);
  const forPeople = { errorPage: refusalPage(assets) };
  return {
    methods: ['GET'],
    register: (context, path) => {
      context.get(path, (res, req) => {
        const accept = req.getHeader('accept');
        const host = req.getHeader('host');
        context.handle(
          res,
          req,
          'GET',
          path,
          (exchange, ip, limits) => {
            if (!wantsHtml(accept)) {
              answerPage(exchange, '200 OK', quickStart(ip, originOf(host)), TEXT_HEADERS, limits);
              return '200';
            }
            const answer = (regions: readonly string[] = []): string => {
              answerPage(exchange, '200 OK', renderPage(assets, pageData(settings, ip, regions)).text, headers, limits);
              return '200';
            };
            return settings.liveRegions === undefined ? answer() : settings.liveRegions().then(answer);
          },
          wantsHtml(accept) ? forPeople : undefined,
        );
      });
    },
  };
}
