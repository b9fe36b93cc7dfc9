import { createRequire } from 'node:module';

/** The package version (from package.json, two folders up from src/api/ and dist/api/). */
export const VERSION: string = (createRequire(import.meta.url)('../../package.json') as { version: string }).version;
