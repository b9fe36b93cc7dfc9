// The page's routes answer people: a refusal (429, 422, 403, …) is an HTML
// page in plain words, with the status and headers the JSON API would send.
import type { ErrorAnswer } from '../api/api-error.js';
import type { Exchange } from '../http/exchange.js';
import { answerPage } from './page-answer.js';
import { htmlHeaders } from './page-headers.js';
import { renderRefusalPage } from './result-page-html.js';
import type { WebAssets } from './web-assets.js';

/** Writes an error answer as a page, for RouteContext.handle's `errorPage`. */
export function refusalPage(assets: WebAssets): (exchange: Exchange, answer: ErrorAnswer) => void {
  const headers = htmlHeaders([]);
  return (exchange, { status, body, headers: more }) =>
    answerPage(exchange, status, renderRefusalPage(assets, body.error, body.reason, body.retry_after).text, headers, more);
}
