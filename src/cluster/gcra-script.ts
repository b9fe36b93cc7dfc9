// Charges one request to every key, all or none, by GCRA (src/limits/gcra.ts
// decides the same way in memory). The clock is Redis TIME, so the API
// nodes' clocks play no part. KEYS: one per charge. ARGV: windowMs and max
// of each charge, in order. Returns now (ms) and each key's theoretical
// arrival time before the charge ('' when it had none), as strings at full
// precision; the new ones are written only when every key allowed it.
export const GCRA_SCRIPT = `
local time = redis.call('TIME')
local now = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
local before, after = {}, {}
local allowed = true
for i = 1, #KEYS do
  local windowMs = tonumber(ARGV[2 * i - 1])
  local max = tonumber(ARGV[2 * i])
  local stored = redis.call('GET', KEYS[i])
  local tat = now
  if stored then tat = math.max(tonumber(stored), now) end
  local nextTat = tat + windowMs / max
  if now < nextTat - windowMs then allowed = false end
  before[i] = stored or ''
  after[i] = nextTat
end
if allowed then
  for i = 1, #KEYS do
    redis.call('SET', KEYS[i], string.format('%.17g', after[i]), 'PXAT', math.ceil(after[i]))
  end
end
local reply = { tostring(now) }
for i = 1, #KEYS do reply[i + 1] = before[i] end
return reply
`;
