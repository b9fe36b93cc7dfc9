// The opt-out list: parsing, matching, live reloads of its file, safe edits and the CLI.
import { appendFile, mkdtemp, readdir, readFile, rename, rm, unlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { afterEach, beforeEach, describe, expect, it } from 'vitest';

import { OPT_OUT_HELP, runOptOutCommand } from '../../src/commands/optout-command.js';
import { addOptOut, listOptOut, removeOptOut } from '../../src/limits/opt-out/opt-out-file.js';
import { OptOutList, OptOutMatcher, type OptOutReloadInfo, parseOptOut } from '../../src/limits/opt-out/opt-out-list.js';
import { eventually } from '../helpers/eventually.js';

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'selfscan-optout-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('parseOptOut', () => {
  it.each([
    ['a bare IPv4 address', '192.0.2.7', '192.0.2.7/32'],
    ['an IPv4 CIDR', '198.51.100.0/24', '198.51.100.0/24'],
    ['an IPv4 CIDR with host bits', '198.51.100.77/24', '198.51.100.0/24'],
    ['all of IPv4', '0.0.0.0/0', '0.0.0.0/0'],
    ['a bare IPv6 address', '2001:DB8:0:0::1', '2001:db8::1/128'],
    ['an IPv6 CIDR', '2001:db8:1::/48', '2001:db8:1::/48'],
    ['an IPv6 CIDR off a nibble boundary', '2001:db8:ffff::/33', '2001:db8:8000::/33'],
    ['an IPv4-mapped address', '::ffff:192.0.2.7', '192.0.2.7/32'],
    ['an IPv4-mapped CIDR', '::ffff:c000:0200/120', '192.0.2.0/24'],
    ['the whole IPv4-mapped range', '::ffff:0:0/96', '0.0.0.0/0'],
    ['a trailing comment', '203.0.113.9   # asked by mail', '203.0.113.9/32'],
    ['surrounding blanks and a CR', '  203.0.113.0/28\t\r', '203.0.113.0/28'],
  ])('reads %s', (_, line, cidr) => {
    expect(parseOptOut(line)).toEqual({ entries: [expect.objectContaining({ cidr, line: 1 })], errors: [] });
  });

  it('skips comments and blank lines and numbers lines from 1', () => {
    const { entries, errors } = parseOptOut('# header\n\n   \n192.0.2.1\n  # indented comment\n2001:db8::/32 # v6\n');
    expect(entries.map((e) => [e.line, e.cidr, e.version, e.prefix])).toEqual([
      [4, '192.0.2.1/32', 4, 32],
      [6, '2001:db8::/32', 6, 32],
    ]);
    expect(errors).toEqual([]);
  });

  it('reports bad lines with their line numbers and keeps the good ones', () => {
    const text = [
      '192.0.2.1',
      'example.com',
      '10.1',
      '192.0.2.0/33',
      '2001:db8::/129',
      '192.0.2.0/-1',
      '192.0.2.0/',
      'fe80::1%eth0',
      '192.0.2.1 192.0.2.2',
      '256.0.0.1',
      '2001:db8::/64',
    ].join('\n');
    const { entries, errors } = parseOptOut(text);
    expect(entries.map((e) => e.cidr)).toEqual(['192.0.2.1/32', '2001:db8::/64']);
    expect(errors.map((e) => e.match(/^line (\d+): /)?.[1])).toEqual(['2', '3', '4', '5', '6', '7', '8', '9', '10']);
    expect(errors[0]).toContain('"example.com"');
  });
});

describe('OptOutMatcher', () => {
  const matcher = (text: string): OptOutMatcher => OptOutMatcher.from(parseOptOut(text).entries);

  it('matches IPv4 networks from their first to their last address and nothing outside', () => {
    const m = matcher('198.51.100.0/24\n192.0.2.7\n10.0.0.0/8');
    expect(['198.51.100.0', '198.51.100.255', '192.0.2.7', '10.0.0.0', '10.255.255.255'].map((ip) => m.has(ip))).toEqual([true, true, true, true, true]);
    expect(['198.51.99.255', '198.51.101.0', '192.0.2.6', '192.0.2.8', '9.255.255.255', '11.0.0.0'].some((ip) => m.has(ip))).toBe(false);
  });

  it('matches IPv6 networks at their boundaries', () => {
    const m = matcher('2001:db8:8000::/33\n2001:db8::1');
    expect(m.has('2001:db8:8000::')).toBe(true);
    expect(m.has('2001:db8:ffff:ffff:ffff:ffff:ffff:ffff')).toBe(true);
    expect(m.has('2001:db8:7fff:ffff:ffff:ffff:ffff:ffff')).toBe(false);
    expect(m.has('2001:db9::')).toBe(false);
    expect(m.has('2001:db8::1')).toBe(true);
    expect(m.has('2001:db8::2')).toBe(false);
  });

  it('treats IPv4-mapped callers as IPv4 and ignores what is not an address', () => {
    const m = matcher('192.0.2.0/24\n::ffff:198.51.100.0/120');
    expect(m.has('::ffff:192.0.2.9')).toBe(true);
    expect(m.has('198.51.100.200')).toBe(true);
    expect(m.has('::ffff:198.51.101.1')).toBe(false);
    expect(m.has('not an ip')).toBe(false);
    expect(m.has('')).toBe(false);
  });

  it('covers everything with /0 and counts duplicates once', () => {
    const m = matcher('0.0.0.0/0\n::/0\n0.0.0.0/0');
    expect(m.size).toBe(2);
    expect(m.has('203.0.113.1') && m.has('2001:db8::1')).toBe(true);
    expect(OptOutMatcher.from([]).has('203.0.113.1')).toBe(false);
  });

  it('holds many entries of mixed prefix lengths', () => {
    const lines: string[] = [];
    for (let i = 0; i < 5000; i += 1) lines.push(`10.${i >> 8}.${i & 255}.0/${24 + (i % 9)}`);
    for (let i = 0; i < 2000; i += 1) lines.push(`2001:db8:${i.toString(16)}::/48`);
    const m = matcher(lines.join('\n'));
    expect(m.size).toBe(7000);
    expect(m.has('10.0.0.0')).toBe(true); // /24
    expect(m.has('10.0.0.255')).toBe(true);
    expect(m.has('10.0.1.0')).toBe(true); // 10.0.1.0/25
    expect(m.has('10.0.1.127')).toBe(true);
    expect(m.has('10.0.1.128')).toBe(false);
    expect(m.has('10.19.136.0')).toBe(false); // i = 5000 is not listed
    expect(m.has('2001:db8:7cf:ffff::1')).toBe(true);
    expect(m.has('2001:db8:7d0::')).toBe(false);
  });
});

describe('OptOutList', () => {
  const opened: OptOutList[] = [];
  afterEach(() => {
    for (const list of opened.splice(0)) list.close();
  });
  const open = async (path: string | undefined, reloads?: OptOutReloadInfo[]): Promise<OptOutList> => {
    const list = await OptOutList.open(path, reloads && ((info) => reloads.push(info)));
    opened.push(list);
    return list;
  };

  it('is empty without a path or a file', async () => {
    expect((await open(undefined)).has('192.0.2.1')).toBe(false);
    const reloads: OptOutReloadInfo[] = [];
    const list = await open(join(dir, 'missing', 'optout.txt'), reloads);
    expect(list.has('192.0.2.1')).toBe(false);
    expect(reloads).toEqual([{ entries: 0, errors: [] }]);
  });

  it('loads the file and reports bad lines', async () => {
    const path = join(dir, 'optout.txt');
    await writeFile(path, '192.0.2.0/24\nbogus\n');
    const reloads: OptOutReloadInfo[] = [];
    const list = await open(path, reloads);
    expect(list.has('192.0.2.200')).toBe(true);
    expect(list.size).toBe(1);
    expect(reloads).toEqual([{ entries: 1, errors: ['line 2: "bogus" is not an IP address or CIDR'] }]);
  });

  it('reloads after an in-place append', async () => {
    const path = join(dir, 'optout.txt');
    await writeFile(path, '192.0.2.1\n');
    const list = await open(path);
    await appendFile(path, '198.51.100.0/24\n');
    await eventually(() => list.has('198.51.100.9'), 3000);
    expect(list.has('192.0.2.1')).toBe(true);
  });

  it('reloads after an atomic rename over the file', async () => {
    const path = join(dir, 'optout.txt');
    await writeFile(path, '192.0.2.1\n');
    const list = await open(path);
    await writeFile(`${path}.new`, '203.0.113.0/24\n');
    await rename(`${path}.new`, path);
    await eventually(() => list.has('203.0.113.5') && !list.has('192.0.2.1'), 3000);
    // The new inode is watched too.
    await appendFile(path, '2001:db8::/32\n');
    await eventually(() => list.has('2001:db8::1'), 3000);
  });

  it('loads a file created after open, and empties when it is deleted', async () => {
    const path = join(dir, 'optout.txt');
    const list = await open(path);
    await writeFile(path, '192.0.2.0/24\n');
    await eventually(() => list.has('192.0.2.1'), 3000);
    await unlink(path);
    await eventually(() => !list.has('192.0.2.1'), 3000);
    expect(list.size).toBe(0);
  });

  it('notices a file whose directory did not exist at open, by polling', async () => {
    const path = join(dir, 'later', 'optout.txt');
    const list = await OptOutList.open(path, undefined, { pollIntervalMs: 50 });
    opened.push(list);
    await addOptOut(path, '192.0.2.0/24');
    await eventually(() => list.has('192.0.2.1'), 3000);
  });

  it('keeps its list after close', async () => {
    const path = join(dir, 'optout.txt');
    await writeFile(path, '192.0.2.1\n');
    const list = await open(path);
    list.close();
    await writeFile(path, '');
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(list.has('192.0.2.1')).toBe(true);
  });
});

describe('opt-out file edits', () => {
  it('creates the file with a header, then adds, lists and removes keeping other lines', async () => {
    const path = join(dir, 'etc', 'optout.txt');
    expect(await listOptOut(path)).toEqual([]);
    expect(await removeOptOut(path, '192.0.2.1')).toBe(false);
    expect(await addOptOut(path, '192.0.2.1')).toBe(true);
    const created = await readFile(path, 'utf8');
    expect(created).toMatch(/^# selfscan opt-out list/);
    expect(created.endsWith('192.0.2.1/32\n')).toBe(true);

    await appendFile(path, '# from abuse@example.net\n198.51.100.0/24 # whole block\nnot-an-ip\n');
    expect(await addOptOut(path, '198.51.100.77/24')).toBe(false); // same network, other spelling
    expect(await addOptOut(path, '2001:DB8::/32')).toBe(true);
    expect(await listOptOut(path)).toEqual(['192.0.2.1/32', '198.51.100.0/24', '2001:db8::/32']);

    expect(await removeOptOut(path, '198.51.100.0/24')).toBe(true);
    expect(await removeOptOut(path, '198.51.100.0/24')).toBe(false);
    expect(await removeOptOut(path, '192.0.2.1')).toBe(true);
    expect(await readFile(path, 'utf8')).toBe(`${created.replace('192.0.2.1/32\n', '')}# from abuse@example.net\nnot-an-ip\n2001:db8::/32\n`);
    expect(await readdir(join(dir, 'etc'))).toEqual(['optout.txt']); // no temporary files left
  });

  it('adds a newline before appending to a file that lacks one', async () => {
    const path = join(dir, 'optout.txt');
    await writeFile(path, '# mine\n192.0.2.1');
    await addOptOut(path, '192.0.2.2');
    expect(await readFile(path, 'utf8')).toBe('# mine\n192.0.2.1\n192.0.2.2/32\n');
  });

  it('refuses an invalid CIDR with a clear error', async () => {
    const path = join(dir, 'optout.txt');
    await expect(addOptOut(path, '192.0.2.0/40')).rejects.toThrow(/invalid opt-out entry: "192.0.2.0\/40": prefix \/40/);
    await expect(removeOptOut(path, 'example.com')).rejects.toThrow(/"example.com" is not an IP address or CIDR/);
    expect(await readdir(dir)).toEqual([]);
  });

  it('serialises concurrent adds: all of them land', async () => {
    const path = join(dir, 'optout.txt');
    const cidrs = Array.from({ length: 20 }, (_, i) => `203.0.113.${i}/32`);
    expect(await Promise.all(cidrs.map((cidr) => addOptOut(path, cidr)))).toEqual(Array(20).fill(true));
    expect((await listOptOut(path)).sort()).toEqual([...cidrs].sort());
    await Promise.all([removeOptOut(path, cidrs[0]!), addOptOut(path, '2001:db8::1'), removeOptOut(path, cidrs[1]!)]);
    expect(await listOptOut(path)).toHaveLength(19);
  });

  it('is seen by a running list', async () => {
    const path = join(dir, 'optout.txt');
    const list = await OptOutList.open(path);
    try {
      await addOptOut(path, '192.0.2.0/24');
      await eventually(() => list.has('192.0.2.1'), 3000);
      await removeOptOut(path, '192.0.2.0/24');
      await eventually(() => !list.has('192.0.2.1'), 3000);
    } finally {
      list.close();
    }
  });
});

describe('runOptOutCommand', () => {
  const run = async (args: string[], defaultPath?: string): Promise<{ code: number; stdout: string; stderr: string }> => {
    let stdout = '';
    let stderr = '';
    const code = await runOptOutCommand(args, defaultPath, {
      stdout: { write: (text: string) => (stdout += text) },
      stderr: { write: (text: string) => (stderr += text) },
    });
    return { code, stdout, stderr };
  };

  it('adds, lists and removes', async () => {
    const path = join(dir, 'optout.txt');
    expect(await run(['add', '192.0.2.7'], path)).toEqual({ code: 0, stdout: `added 192.0.2.7/32 to ${path}\n`, stderr: '' });
    expect(await run(['add', '192.0.2.7/32'], path)).toEqual({ code: 0, stdout: `192.0.2.7/32 is already in ${path}\n`, stderr: '' });
    expect((await run(['add', '2001:db8::/32'], path)).code).toBe(0);
    expect(await run(['list'], path)).toEqual({ code: 0, stdout: '192.0.2.7/32\n2001:db8::/32\n', stderr: '' });
    expect(await run(['remove', '192.0.2.7'], path)).toEqual({ code: 0, stdout: `removed 192.0.2.7/32 from ${path}\n`, stderr: '' });
    expect(await run(['remove', '192.0.2.7'], path)).toEqual({ code: 0, stdout: `192.0.2.7/32 is not in ${path}\n`, stderr: '' });
  });

  it('lets --file override the configured path', async () => {
    const path = join(dir, 'other.txt');
    expect((await run(['add', '--file', path, '192.0.2.7'], join(dir, 'default.txt'))).code).toBe(0);
    expect(await listOptOut(path)).toEqual(['192.0.2.7/32']);
    expect(await run(['list', `--file=${path}`])).toEqual({ code: 0, stdout: '192.0.2.7/32\n', stderr: '' });
    expect(await readdir(dir)).toEqual(['other.txt']);
  });

  it('prints help on stdout', async () => {
    expect(await run(['--help'])).toEqual({ code: 0, stdout: OPT_OUT_HELP, stderr: '' });
  });

  it.each([
    ['no action', []],
    ['an unknown action', ['drop', '192.0.2.7']],
    ['add without a CIDR', ['add']],
    ['remove without a CIDR', ['remove']],
    ['too many arguments', ['add', '192.0.2.7', '192.0.2.8']],
    ['list with an argument', ['list', '192.0.2.7']],
    ['an unknown option', ['list', '--force']],
  ])('exits 2 with usage on stderr for %s', async (_, args) => {
    const result = await run(args, join(dir, 'optout.txt'));
    expect(result.code).toBe(2);
    expect(result.stdout).toBe('');
    expect(result.stderr).toContain('Usage:');
  });

  it('exits 2 for an invalid CIDR and leaves the file alone', async () => {
    const result = await run(['add', '192.0.2.0/33'], join(dir, 'optout.txt'));
    expect(result).toEqual({ code: 2, stdout: '', stderr: 'selfscan optout: "192.0.2.0/33": prefix /33 is longer than 32 bits\n' });
    expect(await readdir(dir)).toEqual([]);
  });

  it('exits 1 when no file is configured', async () => {
    const result = await run(['list'], undefined);
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/no opt-out file configured/);
  });

  it('exits 1 when the file cannot be written', async () => {
    const blocker = join(dir, 'not-a-dir');
    await writeFile(blocker, '');
    const result = await run(['add', '192.0.2.7'], join(blocker, 'optout.txt'));
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/^selfscan optout: /);
  });
});
