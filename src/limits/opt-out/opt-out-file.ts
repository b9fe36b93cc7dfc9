// Edits of the opt-out file that a running service can never observe half
// done: every change is written to a temporary file and renamed over the old.
import { randomBytes } from 'node:crypto';
import { mkdir, open, rename, stat, unlink } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';

import { type ParsedEntry, parseOptOut, parseOptOutEntry, readOptOutFile } from './opt-out-list.js';

const HEADER = `# selfscan opt-out list: callers in these networks are never scanned
# (every start answers 403 not_available). One IPv4 or IPv6 address or CIDR a
# line; a bare address means /32 or /128. '#' starts a comment. The service
# reloads this file when it changes; edit it by hand or with
# \`selfscan optout add|remove|list\`.
`;

/** Tail of the write in progress per file, so that edits within this process run one after another. */
const queues = new Map<string, Promise<unknown>>();

function serialised<T>(path: string, edit: () => Promise<T>): Promise<T> {
  const key = resolve(path);
  const run = (queues.get(key) ?? Promise.resolve()).then(edit);
  const tail = run.catch(() => undefined);
  queues.set(key, tail);
  void tail.then(() => {
    if (queues.get(key) === tail) queues.delete(key);
  });
  return run;
}

function validate(cidr: string): ParsedEntry {
  const entry = parseOptOutEntry(cidr);
  if (typeof entry === 'string') throw new Error(`invalid opt-out entry: ${entry}`);
  return entry;
}

/** Replaces `path` with `text` atomically and durably, keeping the file's mode. */
async function writeAtomically(path: string, text: string): Promise<void> {
  const directory = dirname(path);
  await mkdir(directory, { recursive: true });
  const mode = await stat(path).then(
    (s) => s.mode & 0o7777,
    () => 0o644,
  );
  const temporary = `${path}.tmp-${process.pid}-${randomBytes(6).toString('hex')}`;
  const file = await open(temporary, 'wx', mode);
  try {
    await file.writeFile(text, 'utf8');
    await file.sync();
    await file.close();
    await rename(temporary, path);
  } catch (error) {
    await file.close().catch(() => undefined);
    await unlink(temporary).catch(() => undefined);
    throw error;
  }
  // Make the rename itself survive a crash.
  const dir = await open(directory, 'r');
  try {
    await dir.sync();
  } finally {
    await dir.close();
  }
}

/**
 * Adds `cidr` (an IP address or CIDR, written in canonical form) to the opt-out
 * file, creating the file and its directory if missing. Other lines and
 * comments stay as they are. Resolves false when the same network is already
 * listed; throws an Error for an invalid `cidr`.
 */
export async function addOptOut(path: string, cidr: string): Promise<boolean> {
  const entry = validate(cidr);
  return serialised(path, async () => {
    const text = (await readOptOutFile(path)) ?? HEADER;
    if (parseOptOut(text).entries.some((e) => e.cidr === entry.cidr)) return false;
    const separator = text === '' || text.endsWith('\n') ? '' : '\n';
    await writeAtomically(path, `${text}${separator}${entry.cidr}\n`);
    return true;
  });
}

/**
 * Removes every line listing the network `cidr` (the same network, however
 * written; a larger network that covers it stays). Other lines and comments
 * stay as they are. Resolves false when it was not listed or the file does
 * not exist; throws an Error for an invalid `cidr`.
 */
export async function removeOptOut(path: string, cidr: string): Promise<boolean> {
  const entry = validate(cidr);
  return serialised(path, async () => {
    const text = await readOptOutFile(path);
    if (text === null) return false;
    const listed = new Set(
      parseOptOut(text)
        .entries.filter((e) => e.cidr === entry.cidr)
        .map((e) => e.line),
    );
    if (listed.size === 0) return false;
    const kept = text.split('\n').filter((_, index) => !listed.has(index + 1));
    await writeAtomically(path, kept.join('\n'));
    return true;
  });
}

/** The networks listed in the opt-out file, canonical, in file order; empty when it does not exist. Invalid lines are skipped. */
export async function listOptOut(path: string): Promise<string[]> {
  const text = await readOptOutFile(path);
  return text === null ? [] : parseOptOut(text).entries.map((entry) => entry.cidr);
}
