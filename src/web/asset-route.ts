// GET /assets/:file: the page's built assets, by hashed name. Free of the
// edge limit (loading the page must not spend the caller's budget), cached
// for a year, revalidated by ETag, precompressed (brotli, else gzip).
import { ApiError } from '../api/api-error.js';
import type { Route } from '../http/routes.js';
import { bestEncoding, encodedHeaders } from './page-answer.js';
import { assetHeaders } from './page-headers.js';
import type { WebAssets } from './web-assets.js';

const NO_BODY = Buffer.alloc(0);

/** Whether an If-None-Match header names `etag` (or is `*`). */
export function etagMatches(ifNoneMatch: string, etag: string): boolean {
  return ifNoneMatch.split(',').some((tag) => {
    const trimmed = tag.trim();
    return trimmed === '*' || trimmed === etag || trimmed === `W/${etag}`;
  });
}

export function assetRoute(assets: WebAssets): Route {
  return {
    methods: ['GET'],
    register: (context, path) => {
      context.get(path, (res, req) => {
        const file = req.getParameter(0) ?? '';
        const ifNoneMatch = req.getHeader('if-none-match');
        context.handle(
          res,
          req,
          'GET',
          path,
          (exchange, _ip, headers) => {
            const asset = assets.byFile.get(file);
            if (asset === undefined) throw new ApiError('not_found', `no such asset: ${file}`);
            const own = assetHeaders(asset.contentType, asset.etag);
            if (etagMatches(ifNoneMatch, asset.etag)) {
              exchange.write('304 Not Modified', NO_BODY, own, headers);
              return '304';
            }
            const encoding = bestEncoding(exchange);
            exchange.write('200 OK', asset[encoding], encodedHeaders(own, encoding), headers);
            return '200';
          },
          { charge: 'free' },
        );
      });
    },
  };
}
