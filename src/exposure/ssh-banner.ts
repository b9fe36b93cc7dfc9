// The SSH facts come from the identification string the sweep already read
// (RFC 4253 4.2: `SSH-protoversion-softwareversion SP comments`): no second
// connection to an SSH server.
import type { SshFacts } from '../api/port-facts.js';
import { printableText } from './printable-text.js';

const IDENTIFICATION = /^SSH-([0-9]+\.[0-9]+)-(\S+)(?: +(.*))?$/;

/** The SSH facts of `banner` when it is an SSH identification string, else null. */
export function parseSshBanner(banner: string): SshFacts | null {
  const line = banner.split('\n', 1)[0]!.trimEnd();
  const match = IDENTIFICATION.exec(line);
  if (match === null) return null;
  const comment = match[3]?.trim();
  return {
    protocol: match[1]!,
    software: printableText(match[2]!),
    comment: comment === undefined || comment === '' ? null : printableText(comment),
  };
}
