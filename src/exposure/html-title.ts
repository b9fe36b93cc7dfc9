// The title of a page, as a browser tab would show it: the text of the first
// <title> element (or what arrived of it), entities decoded, white space
// collapsed, made printable and short.
import { printableText } from './printable-text.js';

const NAMED_ENTITIES: Readonly<Record<string, string>> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'", nbsp: ' ' };

/** The page title in `html`, or null when it has none (or an empty one). */
export function htmlTitle(html: string): string | null {
  const open = /<title\b[^>]*>/i.exec(html);
  if (open === null) return null;
  const start = open.index + open[0].length;
  const close = html.slice(start).search(/<\/title\s*>/i);
  const raw = close < 0 ? html.slice(start) : html.slice(start, start + close);
  const title = decodeEntities(raw).replace(/\s+/g, ' ').trim();
  return title === '' ? null : printableText(title);
}

/** `&amp;`, `&lt;`, `&gt;`, `&quot;`, `&apos;`, `&nbsp;`, `&#NN;` and `&#xHH;` decoded; others kept. */
export function decodeEntities(text: string): string {
  return text.replace(/&(#[0-9]{1,7}|#[xX][0-9a-fA-F]{1,6}|[a-zA-Z]+);/g, (entity, body: string) => {
    if (body.startsWith('#')) {
      const code = body[1] === 'x' || body[1] === 'X' ? Number.parseInt(body.slice(2), 16) : Number.parseInt(body.slice(1), 10);
      return code > 0 && code <= 0x10ffff ? String.fromCodePoint(code) : entity;
    }
    return NAMED_ENTITIES[body.toLowerCase()] ?? entity;
  });
}
