// The fields of the page's form post (which button, whether from every
// region), sent as application/x-www-form-urlencoded. uWS drops body data
// nobody listens for, so the reader is attached in the route callback; a
// form of this page is tiny, so a larger body is refused, not read whole.
import { ApiError } from '../api/api-error.js';
import type { Exchange } from '../http/exchange.js';
import { RequestBody } from '../http/fetch-bridge.js';
import type { HttpResponse } from '../http/seam.js';

/** Far more than the page's form sends. */
const MAX_FORM_BYTES = 1024;

/** Reads the form's fields; null when the client went away first. */
export type FormFields = (exchange: Exchange) => Promise<URLSearchParams | null>;

/** Starts reading the body of `res`: call it in the route callback, before any await. */
export function readFormBody(res: HttpResponse): FormFields {
  const body = new RequestBody(res, MAX_FORM_BYTES);
  return async (exchange) => {
    exchange.onAbort(() => body.abort());
    if (exchange.aborted) body.abort(); // gone before the handler ran: onAbort came too late
    const outcome = await body.done;
    if (outcome.kind === 'aborted') return null;
    if (outcome.kind === 'too_large') throw new ApiError('bad_request', `the form is over ${MAX_FORM_BYTES} bytes; this page's form sends far less`);
    return new URLSearchParams(new TextDecoder().decode(outcome.body));
  };
}
