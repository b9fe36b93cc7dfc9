// The PTR name of the scanned address goes into the SNI, the Host header and
// the certificate name check. It comes from DNS, which the address's owner
// controls: only a well-formed host name is used, never an IP address and
// never text that could break a request line.

const LABEL = /^(?!-)[A-Za-z0-9_-]{1,63}(?<!-)$/;

/** `ptr` without its final dot when it is a well-formed host name (not an IP address), else null. */
export function ptrHostname(ptr: string | null): string | null {
  const name = ptr?.replace(/\.$/, '') ?? '';
  if (name === '' || name.length > 253 || /^[0-9.]+$/.test(name) || name.includes(':')) return null;
  return name.split('.').every((label) => LABEL.test(label)) ? name : null;
}
