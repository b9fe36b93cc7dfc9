// The page's routes, mounted on the HTTP app beside the API's: the page,
// its assets, and the no-JavaScript scan pages.
import type { Route } from '../http/routes.js';
import { assetRoute } from './asset-route.js';
import { pageRoute } from './page-route.js';
import type { PageSettings } from './page-settings.js';
import { scanFormRoute } from './scan-form-route.js';
import type { WebAssets } from './web-assets.js';

/** The path of the assets route; `:file` is the hashed file name. */
export const ASSETS_PATH = '/assets/:file';

export function webRoutes(settings: PageSettings, assets: WebAssets): Record<string, Route> {
  return {
    '/': pageRoute(settings, assets),
    [ASSETS_PATH]: assetRoute(assets),
    '/scan/fast': scanFormRoute('fast', assets),
    '/scan/deep': scanFormRoute('deep', assets),
    '/scan/udp': scanFormRoute('udp', assets),
  };
}
