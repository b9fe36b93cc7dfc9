-- Charges every limit key all or none (redis-rate-limit-store.ts).
-- KEYS: the limit keys. ARGV: window ms and max of each. Replies now/before.
--- @include "gcra"
local check = gcra_check(KEYS, 1, ARGV, 1)
if check.allowed then gcra_commit(check) end
return gcra_reply(check)
