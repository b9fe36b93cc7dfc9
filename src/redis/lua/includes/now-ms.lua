-- Sets `now` to Redis's time in Unix milliseconds: one clock for the whole
-- cluster, whatever the nodes' clocks say.
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
