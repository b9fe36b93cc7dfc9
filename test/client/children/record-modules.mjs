// Preloaded with `node --import` into a `selfscan check` child: registers
// the resolve hook beside it, which records every module the child loads.
import { register } from 'node:module';

register('./record-modules-hooks.mjs', import.meta.url);
