// `--redis` read once: a primary, a unix socket or Sentinels; what is not
// one of them is a clear configuration error that never repeats a password.
import { describe, expect, it } from 'vitest';

import { ConfigError, loadConfig } from '../../src/config/config-sources.js';
import { parseRedisUrl, redactRedisUrl } from '../../src/config/redis-url.js';
import { redisOptions } from '../../src/redis/redis-connection.js';

describe('parseRedisUrl', () => {
  it('reads a primary, its credentials, database and TLS, and a unix socket', () => {
    expect(parseRedisUrl('redis://redis.internal')).toEqual({ kind: 'primary', host: 'redis.internal', port: 6379, db: 0, tls: false });
    expect(parseRedisUrl('rediss://app:p%40ss@[::1]:6380/2')).toEqual({
      kind: 'primary',
      host: '::1',
      port: 6380,
      username: 'app',
      password: 'p@ss',
      db: 2,
      tls: true,
    });
    expect(parseRedisUrl('unix:///run/redis/redis.sock')).toEqual({ kind: 'socket', path: '/run/redis/redis.sock' });
    expect(parseRedisUrl('/run/redis/redis.sock')).toEqual({ kind: 'socket', path: '/run/redis/redis.sock' });
  });

  it('reads Sentinels, the master name, both credentials and TLS', () => {
    expect(parseRedisUrl('redis+sentinel://127.0.0.1:26391,127.0.0.1:26392,[::1]:26393/mymaster')).toEqual({
      kind: 'sentinel',
      sentinels: [
        { host: '127.0.0.1', port: 26391 },
        { host: '127.0.0.1', port: 26392 },
        { host: '::1', port: 26393 },
      ],
      masterName: 'mymaster',
      db: 0,
      tls: false,
    });
    expect(parseRedisUrl('rediss+sentinel://:data%2Fpass@s1,s2:5000/main/3?sentinel_password=s%26p&sentinel_username=watch')).toEqual({
      kind: 'sentinel',
      sentinels: [
        { host: 's1', port: 26379 },
        { host: 's2', port: 5000 },
      ],
      masterName: 'main',
      password: 'data/pass',
      sentinelPassword: 's&p',
      sentinelUsername: 'watch',
      db: 3,
      tls: true,
    });
  });

  it('refuses what it cannot read, saying what it expected, never the password', () => {
    const refusals: [string, RegExp][] = [
      ['redis.internal:6379', /not a Redis URL: redis\.internal:6379; expected `redis:\/\/`/],
      ['http://redis.internal', /not a Redis URL/],
      ['redis://:secret@', /redis:\/\/:\*\*\*@/],
      ['redis://h/x', /the database must be a number/],
      ['redis+sentinel://127.0.0.1:26391', /not a Sentinel URL: .*MASTER_NAME/],
      ['redis+sentinel://:secret@127.0.0.1:99999/m', /"127\.0\.0\.1:99999" is not a Sentinel's HOST:PORT/],
      ['redis+sentinel://h:1/m?password=x', /unknown parameter password/],
      ['unix://relative.sock', /absolute path/],
    ];
    for (const [text, message] of refusals) {
      expect(() => parseRedisUrl(text), text).toThrow(message);
      try {
        parseRedisUrl(text);
      } catch (error) {
        expect((error as Error).message).not.toContain('secret');
      }
    }
    expect(redactRedisUrl('redis+sentinel://u:secret@h:1/m?sentinel_password=other')).toBe('redis+sentinel://u:***@h:1/m?sentinel_password=***');
  });

  it('makes a bad --redis or SELFSCAN_REDIS_URL a ConfigError naming the setting', () => {
    expect(() => loadConfig({ redis: 'redis+sentinel://a:1,b:2' }, {})).toThrow(ConfigError);
    expect(() => loadConfig({ redis: 'redis+sentinel://a:1,b:2' }, {})).toThrow(/^redisUrl \(--redis\): not a Sentinel URL/);
    expect(() => loadConfig({}, { SELFSCAN_REDIS_URL: 'nope' })).toThrow(/^redisUrl \(SELFSCAN_REDIS_URL\): not a Redis URL: nope/);
    expect(loadConfig({ redis: 'redis+sentinel://a:1,b:2/m' }, {}).redisUrl).toBe('redis+sentinel://a:1,b:2/m');
  });
});

describe('redisOptions', () => {
  it('gives ioredis the Sentinels, the master name, both credentials and TLS for both', () => {
    expect(redisOptions('rediss+sentinel://:pw@a:1,b:2/m/1?sentinel_password=sp')).toMatchObject({
      sentinels: [
        { host: 'a', port: 1 },
        { host: 'b', port: 2 },
      ],
      name: 'm',
      password: 'pw',
      sentinelPassword: 'sp',
      db: 1,
      tls: {},
      sentinelTLS: {},
      enableTLSForSentinelMode: true,
    });
    expect(redisOptions('redis://h:7/0')).toEqual({ host: 'h', port: 7, db: 0, username: undefined, password: undefined, tls: undefined });
  });
});
