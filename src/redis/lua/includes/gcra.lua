-- GCRA for scripts that charge rate limits, all keys or none, on Redis's
-- clock. src/limits/rate/gcra.ts decides the same way; the scripts reply
-- the state they saw (now, and each key's theoretical arrival time before
-- the charge, '' when it had none, as strings at full precision) and the
-- caller works the decisions out with it (gcra-script.ts).

-- Checks the limit keys keys[first..] with window/max pairs from args[firstArg..].
local function gcra_check(keys, first, args, firstArg)
  --- @include "now-ms"
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

-- Writes the checked keys' new state.
local function gcra_commit(check)
  for i, key in ipairs(check.keys) do
    redis.call('SET', key, string.format('%.17g', check.after[i]), 'PXAT', math.ceil(check.after[i]))
  end
end

-- The now/before list.
local function gcra_reply(check)
  local reply = { tostring(check.now) }
  for _, before in ipairs(check.before) do table.insert(reply, before) end
  return reply
end
