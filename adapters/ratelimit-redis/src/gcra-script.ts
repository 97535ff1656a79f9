/**
 * The GCRA take as one Lua script, so reading and writing a bucket is atomic in Redis and
 * every instance sharing the Redis shares the bucket. It is line for line the reference
 * model (`gcra()` in @keyhold/activities): same operations in the same order on the same
 * doubles, so both round alike, and the contract compares them.
 * @module
 */

/**
 * KEYS[1] the bucket. ARGV: emission ms, burst, cost, slack ms, and a test clock's now in ms
 * (empty in production: then the time is Redis `TIME`, the one clock every instance shares,
 * so instances whose own clocks are skewed still agree). Returns
 * {allowed (0|1), limit, remaining, resetMs, retryAfterMs}. A cost above the burst waits for
 * a full bucket and leaves it in debt, as the model does.
 * The key holds the model's state as "<at> <debtMs>", each with 17 significant digits (an
 * exact round trip of the double), and expires a second after the bucket is full again — an
 * absent key is a full bucket.
 * @example
 * await redis.eval(GCRA_LUA, 1, 'keyhold:ratelimit:query:ip:203.0.113.7', '16.666666666666668', '60', '1', '0.001', '');
 */
export const GCRA_LUA = `
local emission = tonumber(ARGV[1])
local burst = tonumber(ARGV[2])
local cost = tonumber(ARGV[3])
local slack = tonumber(ARGV[4])
local now
if ARGV[5] ~= '' then
  now = tonumber(ARGV[5])
else
  if redis.replicate_commands then redis.replicate_commands() end
  local t = redis.call('TIME')
  now = tonumber(t[1]) * 1000 + tonumber(t[2]) / 1000
end
local function ceil_ms(ms)
  local v = math.ceil(ms - slack)
  if v < 0 then return 0 end
  return v
end
local function tokens(ms)
  local v = math.floor((ms + slack) / emission)
  if v < 0 then return 0 end
  return v
end
local tolerance = burst * emission
local debt = 0
local stored = redis.call('GET', KEYS[1])
if stored then
  local at, owed = string.match(stored, '^(%S+) (%S+)$')
  at = tonumber(at)
  owed = tonumber(owed)
  if at and owed then
    debt = owed - (now - at)
    if debt < 0 then debt = 0 end
  end
end
local nxt = debt + cost * emission
local wait
if cost > burst then wait = debt else wait = nxt - tolerance end
if wait > slack then
  local retry = ceil_ms(wait)
  if retry < 1 then retry = 1 end
  return {0, burst, tokens(tolerance - debt), ceil_ms(debt), retry}
end
redis.call('SET', KEYS[1], string.format('%.17g %.17g', now, nxt), 'PX', math.ceil(nxt) + 1000)
return {1, burst, tokens(tolerance - nxt), ceil_ms(nxt), 0}
`;
