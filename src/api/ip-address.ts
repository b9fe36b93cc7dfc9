// The scanned address as the wire shows it: the caller's own, IPv4 or IPv6
// (an IPv4-mapped IPv6 caller is shown, and scanned, as IPv4).
import * as z from 'zod';

/** An IPv4 or IPv6 address in text form. */
export const IpAddress = z.union([z.ipv4(), z.ipv6()]).meta({ description: "The scanned address: the caller's." });
export type IpAddress = z.output<typeof IpAddress>;
