// The `regions` query parameter of the scan routes (v1 POST and GET, v2):
// read in the uWS callback (the request is gone after an await), judged in
// the handler, so a malformed value is answered as its JSON error.
import { ApiError } from '../api/api-error.js';
import { type RegionsAsked, refuseRegions, regionsKey } from '../api/regions-asked.js';
import type { HttpRequest } from './seam.js';

/** The parameter's name as bytes: uWS converts a string key to UTF-8 on every call (its types admit only a string key). */
const REGIONS = Buffer.from('regions') as unknown as string;

/** The raw `regions` parameter; undefined when the query has none. */
export function readRegionsParam(req: HttpRequest): string | undefined {
  return req.getQuery(REGIONS);
}

/** The regions a request asked for; undefined for a scan from one place; `invalid_regions` when malformed. */
export function regionsAskedOf(raw: string | undefined): RegionsAsked | undefined {
  if (raw === undefined) return undefined;
  let text: string;
  try {
    text = decodeURIComponent(raw);
  } catch {
    throw new ApiError('invalid_regions', 'regions is not valid percent-encoding');
  }
  return regionsAskedFrom(text);
}

/** The regions a `regions` value (decoded) asks for; `invalid_regions` when malformed. */
export function regionsAskedFrom(text: string): RegionsAsked {
  const refused = refuseRegions(text);
  if (refused !== null) throw new ApiError('invalid_regions', refused);
  return regionsKey(text);
}
