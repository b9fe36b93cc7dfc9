// The `regions` a caller asks a scan to look from (`?regions=all` or
// `?regions=NL,FR`), as the one key the service keeps such a scan under:
// `all`, or the names sorted and without repeats. Zod-free: the check
// client and the page read it too.

/** What a multi-region request asked for: `all`, or region names sorted, comma-separated. */
export type RegionsAsked = string;

const REGION = /^[A-Za-z0-9_-]{1,32}$/;
/** More names than any deployment has regions: a longer list is malformed. */
const MAX_REGIONS = 32;

/** Why `text` is no `regions` value; null when it is one. */
export function refuseRegions(text: string): string | null {
  if (text === 'all') return null;
  const names = text.split(',');
  if (names.length > MAX_REGIONS) return `regions names at most ${MAX_REGIONS} regions`;
  const bad = names.find((name) => !REGION.test(name));
  return bad === undefined
    ? null
    : `regions must be \`all\` or region names (letters, digits, _ and -, up to 32 each) separated by commas; got ${JSON.stringify(text.slice(0, 80))}`;
}

/** The key of a valid `regions` value. */
export function regionsKey(text: string): RegionsAsked {
  return text === 'all' ? 'all' : [...new Set(text.split(','))].sort().join(',');
}

/** The names a key lists; null for `all`. */
export function regionsNamed(asked: RegionsAsked): string[] | null {
  return asked === 'all' ? null : asked.split(',');
}
