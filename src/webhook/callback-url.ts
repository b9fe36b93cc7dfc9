// Checks an X-Callback-Url header at the POST, before anything starts.

const MAX_LENGTH = 2048;

/** Null when `value` is an acceptable callback URL, else why not. */
export function refuseCallbackUrl(value: string): string | null {
  if (value.length > MAX_LENGTH) return `X-Callback-Url is longer than ${MAX_LENGTH} characters`;
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return 'X-Callback-Url must be an absolute http or https URL';
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return 'X-Callback-Url must use http or https';
  if (url.username !== '' || url.password !== '') return 'X-Callback-Url must not carry a user name or password';
  if (url.hostname === '') return 'X-Callback-Url must name a host';
  return null;
}
