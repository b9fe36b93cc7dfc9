// What a probe read is untrusted bytes; every text fact it becomes is made
// printable and short here, as the sweep does with banners, so a hostile
// server cannot put control characters or megabytes into a result.

/** Longest text fact (a title, a header, a name in a certificate), in characters. */
export const MAX_TEXT_CHARS = 200;

/**
 * `text` as one printable ASCII line of at most `maxChars` characters: CR
 * dropped, tab as a space, any other control or non-ASCII character as '.'.
 */
export function printableText(text: string, maxChars: number = MAX_TEXT_CHARS): string {
  let out = '';
  for (let i = 0; i < text.length && out.length < maxChars; i++) {
    const code = text.charCodeAt(i);
    if (code === 0x0d) continue;
    if (code === 0x09) out += ' ';
    else if (code >= 0x20 && code < 0x7f) out += text[i];
    else out += '.';
  }
  return out;
}
