// The page's built assets (scripts/build-web.mjs writes them to
// dist/public), held in memory ready to serve: each file as it is, gzipped
// and brotli-compressed once at start, with a strong ETag.
import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { brotliCompressSync, constants, gzipSync } from 'node:zlib';

/** The logical names of the assets the page links to. */
export type AssetName = 'app.js' | 'style.css' | 'icon.svg';

export interface Asset {
  /** The hashed file name, as the page links it under /assets/. */
  file: string;
  contentType: string;
  etag: string;
  identity: Buffer;
  gzip: Buffer;
  br: Buffer;
}

export interface WebAssets {
  /** An asset by its hashed file name. */
  byFile: ReadonlyMap<string, Asset>;
  /** The path the page links `name` at. */
  path(name: AssetName): string;
}

const CONTENT_TYPES: Readonly<Record<string, string>> = {
  js: 'text/javascript; charset=utf-8',
  css: 'text/css; charset=utf-8',
  svg: 'image/svg+xml',
};

/** Where the build puts them: dist/public, from src/web or dist/web alike. */
export const PUBLIC_DIR = new URL('../../dist/public/', import.meta.url);

function loadAsset(dir: URL, file: string): Asset {
  const identity = readFileSync(new URL(file, dir));
  const extension = file.slice(file.lastIndexOf('.') + 1);
  return {
    file,
    contentType: CONTENT_TYPES[extension] ?? 'application/octet-stream',
    etag: `"${createHash('sha256').update(identity).digest('base64url').slice(0, 22)}"`,
    identity,
    gzip: gzipSync(identity, { level: 9 }),
    br: brotliCompressSync(identity, { params: { [constants.BROTLI_PARAM_QUALITY]: 11, [constants.BROTLI_PARAM_SIZE_HINT]: identity.length } }),
  };
}

/** Loads the built assets; throws, saying how to build them, when they are missing. */
export function loadWebAssets(dir: URL = PUBLIC_DIR): WebAssets {
  const manifestUrl = new URL('manifest.json', dir);
  if (!existsSync(manifestUrl)) {
    throw new Error(`the web page's assets are not built (no ${manifestUrl.pathname}): run \`npm run build\``);
  }
  const manifest = JSON.parse(readFileSync(manifestUrl, 'utf8')) as Record<AssetName, string>;
  const byFile = new Map<string, Asset>();
  for (const file of Object.values(manifest)) byFile.set(file, loadAsset(dir, file));
  return { byFile, path: (name) => `/assets/${manifest[name]}` };
}
