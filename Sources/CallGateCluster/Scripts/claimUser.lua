local current = redis.call('GET', KEYS[1])
if current and string.sub(current, 1, #ARGV[1]) ~= ARGV[1] then return {0, current} end
local limit = tonumber(ARGV[8])
if limit > 0 then
  redis.call('ZREMRANGEBYSCORE', KEYS[2], '-inf', tonumber(ARGV[6]) - tonumber(ARGV[7]))
  if redis.call('ZCARD', KEYS[2]) >= limit then return {2} end
  redis.call('ZADD', KEYS[2], ARGV[6], ARGV[9])
  redis.call('PEXPIRE', KEYS[2], ARGV[7])
end
if not current or ARGV[5] == '1' then redis.call('SET', KEYS[1], ARGV[2], 'PX', ARGV[3]) end
local n = tonumber(ARGV[4])
local claims, profiles, devices = {}, {}, {}
for i = 1, n do
  claims[i] = redis.call('GET', KEYS[2 + i])
  profiles[i] = redis.call('GET', KEYS[2 + n + i])
  devices[i] = redis.call('HGETALL', KEYS[2 + 2 * n + i])
end
return {1, claims, profiles, devices}
