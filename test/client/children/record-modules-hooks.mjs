// The resolve hook of record-modules.mjs: appends each resolved module URL
// to the file named by SELFSCAN_MODULE_LOG, and refuses the server's heavy
// packages outright, so a command that needs them fails loudly.
import { appendFileSync } from 'node:fs';

const SERVER_PACKAGES = ['@trufflesuite/uws-js-unofficial', 'lmdb', 'zod', 'pino', 'bullmq', 'ioredis', 'node-gyp-build', '@modelcontextprotocol/server'];

export async function resolve(specifier, context, next) {
  if (SERVER_PACKAGES.some((name) => specifier === name || specifier.startsWith(`${name}/`))) throw new Error(`server package loaded: ${specifier}`);
  const resolved = await next(specifier, context);
  appendFileSync(process.env.SELFSCAN_MODULE_LOG, `${resolved.url}\n`);
  return resolved;
}
