// What `--redis` names, read once: a primary (redis://, rediss://), a unix
// socket, or Sentinels that name the primary (redis+sentinel://,
// rediss+sentinel://). The config schema refuses a value this cannot read,
// with a message that never repeats a password; the Redis adapters build
// their connections from the result (src/redis/redis-connection.ts).

/** A host and port. */
export interface RedisEndpoint {
  host: string;
  port: number;
}

/** Credentials and database shared by every form that reaches a data node. */
interface DataNode {
  username?: string;
  password?: string;
  db: number;
  /** TLS to the data nodes (and, for Sentinels, to the Sentinels too). */
  tls: boolean;
}

export type RedisTarget =
  | { kind: 'socket'; path: string }
  | ({ kind: 'primary' } & RedisEndpoint & DataNode)
  | ({ kind: 'sentinel'; sentinels: RedisEndpoint[]; masterName: string; sentinelUsername?: string; sentinelPassword?: string } & DataNode);

const DEFAULT_PORT = 6379;
const DEFAULT_SENTINEL_PORT = 26379;
const FORMS = '`redis://`, `rediss://`, `redis+sentinel://HOST:PORT[,HOST:PORT…]/MASTER_NAME`, `rediss+sentinel://…` or `unix:///path`';
const SENTINEL_URL = /^(rediss?)\+sentinel:\/\/(?:([^@/?#]*)@)?([^/?#]+)\/([^/?#]+)(?:\/([^/?#]*))?\/?(?:\?([^#]*))?$/;
const SENTINEL_PARAMETERS = new Set(['sentinel_username', 'sentinel_password']);

/** `text` without the password it may carry, for a message. */
export function redactRedisUrl(text: string): string {
  return text.replace(/^([a-z+]+:\/\/[^:@/]*):[^@/]*@/i, '$1:***@').replace(/(sentinel_password=)[^&#]*/i, '$1***');
}

/** Reads `--redis`; throws an Error whose message says what is wrong (without the password). */
export function parseRedisUrl(text: string): RedisTarget {
  if (text.startsWith('/')) return { kind: 'socket', path: text };
  if (text.startsWith('unix://')) {
    const path = decodeURIComponent(text.slice('unix://'.length).split('?')[0]!);
    if (!path.startsWith('/')) throw new Error(`a unix socket URL needs an absolute path (unix:///path/redis.sock), got ${redactRedisUrl(text)}`);
    return { kind: 'socket', path };
  }
  if (/^rediss?\+sentinel:/i.test(text)) return parseSentinelUrl(text);
  if (!/^rediss?:\/\//i.test(text)) throw new Error(`not a Redis URL: ${redactRedisUrl(text)}; expected ${FORMS}`);
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new Error(`not a valid URL: ${redactRedisUrl(text)}; expected ${FORMS}`);
  }
  if (url.hostname === '') throw new Error(`no host in ${redactRedisUrl(text)}`);
  if (url.search !== '') throw new Error(`${redactRedisUrl(text)}: a redis:// URL takes no query`);
  const hostname = url.hostname.replace(/^\[(.*)\]$/, '$1');
  return {
    kind: 'primary',
    host: hostname,
    port: url.port === '' ? DEFAULT_PORT : Number(url.port),
    ...credentials(url.username, url.password, text),
    db: database(url.pathname.slice(1), text),
    tls: url.protocol === 'rediss:',
  };
}

function parseSentinelUrl(text: string): RedisTarget {
  const match = SENTINEL_URL.exec(text);
  if (match === null) {
    throw new Error(
      `not a Sentinel URL: ${redactRedisUrl(text)}; expected redis+sentinel://[USER:PASSWORD@]HOST:PORT[,HOST:PORT…]/MASTER_NAME[/DB][?sentinel_password=…]`,
    );
  }
  const [, scheme, userinfo, hosts, masterName, db, query] = match;
  const [username = '', password = ''] = userinfo === undefined ? [] : splitOnce(userinfo, ':');
  const sentinels = hosts!.split(',').map((host) => endpoint(host, text));
  const parameters = new URLSearchParams(query ?? '');
  for (const name of parameters.keys()) {
    if (!SENTINEL_PARAMETERS.has(name)) throw new Error(`${redactRedisUrl(text)}: unknown parameter ${name} (known: ${[...SENTINEL_PARAMETERS].join(', ')})`);
  }
  const sentinelUsername = parameters.get('sentinel_username') ?? undefined;
  const sentinelPassword = parameters.get('sentinel_password') ?? undefined;
  return {
    kind: 'sentinel',
    sentinels,
    masterName: decode(masterName!, text),
    ...(sentinelUsername === undefined ? {} : { sentinelUsername }),
    ...(sentinelPassword === undefined ? {} : { sentinelPassword }),
    ...credentials(username, password, text),
    db: database(db ?? '', text),
    tls: scheme!.toLowerCase() === 'rediss',
  };
}

/** `HOST[:PORT]` or `[IPv6][:PORT]` of a Sentinel. */
function endpoint(text: string, url: string): RedisEndpoint {
  const match = /^(?:\[([0-9A-Fa-f:.]+)\]|([^:[\]\s]+))(?::(\d{1,5}))?$/.exec(text);
  const port = match?.[3] === undefined ? DEFAULT_SENTINEL_PORT : Number(match[3]);
  if (match === null || port < 1 || port > 65535) throw new Error(`${redactRedisUrl(url)}: ${JSON.stringify(text)} is not a Sentinel's HOST:PORT`);
  return { host: match[1] ?? match[2]!, port };
}

function credentials(username: string, password: string, url: string): { username?: string; password?: string } {
  return {
    ...(username === '' ? {} : { username: decode(username, url) }),
    ...(password === '' ? {} : { password: decode(password, url) }),
  };
}

function database(text: string, url: string): number {
  if (text === '') return 0;
  if (!/^\d{1,5}$/.test(text)) throw new Error(`${redactRedisUrl(url)}: the database must be a number, got ${JSON.stringify(text)}`);
  return Number(text);
}

function decode(text: string, url: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    throw new Error(`${redactRedisUrl(url)}: bad percent-encoding`);
  }
}

function splitOnce(text: string, separator: string): [string, string] {
  const at = text.indexOf(separator);
  return at === -1 ? [text, ''] : [text.slice(0, at), text.slice(at + 1)];
}
