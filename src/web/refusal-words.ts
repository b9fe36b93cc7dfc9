// What a refused scan means, in plain words, for the page (its script and
// its no-JavaScript pages alike), by the error code the API answered.

export const REFUSAL_WORDS: Readonly<Record<string, string>> = {
  rate_limited: 'You have asked too often. The limits keep the service fair and stop it from being used to flood anyone; the wait is below.',
  invalid_target:
    'Your address is not reachable from the internet (a private, loopback, shared or reserved address), so there is nothing the world could reach to scan. Connect over a public address and try again.',
  not_available: 'This address has been opted out of scanning, or is restricted by the operator of this service. Nothing will be scanned.',
  invalid_regions:
    'This service cannot scan from the regions asked for: it scans from one place, or one of those regions is unknown to it. Scan without choosing regions.',
  cross_site: 'This form can only be sent from this service’s own page.',
  unavailable: 'The service cannot take the scan right now. Try again in a minute.',
};

/** The plain words for an error code; the server's reason when there are none. */
export function refusalWords(code: string, reason: string): string {
  return REFUSAL_WORDS[code] ?? reason;
}
