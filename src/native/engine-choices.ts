// The scanner's probe engines by name, apart from the addon so the
// configuration can name them without loading it.

/** A probe engine: half-open SYNs over a raw socket, or nonblocking connect() calls. */
export const ENGINES = ['syn', 'connect'] as const;
export type EngineName = (typeof ENGINES)[number];

/** What `scanner.engine` and `createScanner({ engine })` accept: `auto` is syn with CAP_NET_RAW, else connect. */
export const ENGINE_CHOICES = ['auto', ...ENGINES] as const;
export type EngineChoice = (typeof ENGINE_CHOICES)[number];

/** How the addon's Error for `engine: 'syn'` without the capability begins. */
export const SYN_NEEDS_CAP_NET_RAW = 'the syn engine needs CAP_NET_RAW';

/** The `code` createScanner gives that Error. */
export const SYN_NEEDS_CAP_NET_RAW_CODE = 'ERR_SYN_NEEDS_CAP_NET_RAW';
