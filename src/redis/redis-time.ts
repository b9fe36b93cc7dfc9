// Redis's clock in Lua, for every script that needs the time: one clock
// for the whole cluster, whatever the nodes' clocks say.

/** Lua that sets `now` to Redis's time in Unix milliseconds. */
export const NOW_MS_LUA = `local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)`;
