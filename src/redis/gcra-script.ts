// GCRA in Lua, for scripts that charge rate limits in Redis: all keys or
// none, on Redis's clock (TIME), so the API nodes' clocks play no part.
// src/limits/gcra.ts decides the same way; the scripts return the state
// they saw (now, and each key's theoretical arrival time before the charge,
// '' when it had none, as strings at full precision) and the caller works
// the decisions out with it.

import { gcra, type RateDecision } from '../limits/rate/gcra.js';
import type { RateCharge } from '../limits/rate/rate-limit-store.js';
import { NOW_MS_LUA } from './redis-time.js';

/**
 * Lua functions: `gcra_check(keys, first, args, firstArg)` checks the limit
 * keys `keys[first..]` with window/max pairs from `args[firstArg..]`;
 * `gcra_commit(check)` writes their new state; `gcra_reply(check)` is the
 * now/before list.
 */
export const GCRA_LUA = `
local function gcra_check(keys, first, args, firstArg)
  ${NOW_MS_LUA}
  local check = { now = now, keys = {}, before = {}, after = {}, allowed = true }
  for i = first, #keys do
    local at = firstArg + 2 * (i - first)
    local windowMs = tonumber(args[at])
    local max = tonumber(args[at + 1])
    local stored = redis.call('GET', keys[i])
    local tat = now
    if stored then tat = math.max(tonumber(stored), now) end
    local nextTat = tat + windowMs / max
    if now < nextTat - windowMs then check.allowed = false end
    table.insert(check.keys, keys[i])
    table.insert(check.before, stored or '')
    table.insert(check.after, nextTat)
  end
  return check
end

local function gcra_commit(check)
  for i, key in ipairs(check.keys) do
    redis.call('SET', key, string.format('%.17g', check.after[i]), 'PXAT', math.ceil(check.after[i]))
  end
end

local function gcra_reply(check)
  local reply = { tostring(check.now) }
  for _, before in ipairs(check.before) do table.insert(reply, before) end
  return reply
end
`;

/** Charges every key (KEYS) all or none; ARGV: window ms and max of each. Replies now/before. */
export const GCRA_SCRIPT = `${GCRA_LUA}
local check = gcra_check(KEYS, 1, ARGV, 1)
if check.allowed then gcra_commit(check) end
return gcra_reply(check)
`;

/** The decision of each charge, from a script's now/before reply (`gcra_reply`). */
export function decisionsOf(charges: readonly RateCharge[], reply: readonly string[]): RateDecision[] {
  const [now, ...before] = reply.map((text) => (text === '' ? undefined : Number(text)));
  return charges.map(({ rule }, i) => gcra(before[i], rule, now!).decision);
}
