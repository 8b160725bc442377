local current = redis.call('GET', KEYS[1])
if current and current ~= ARGV[1] then return {0, current} end
redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
redis.call('SADD', KEYS[2], ARGV[3])
if tonumber(redis.call('GET', KEYS[3]) or '0') < tonumber(ARGV[5]) then redis.call('SET', KEYS[3], ARGV[5]) end
local live, lapsed, runs = {}, {}, {}
for _, id in ipairs(redis.call('SMEMBERS', KEYS[2])) do
  local run = redis.call('GET', ARGV[4] .. id)
  if run then
    live[#live + 1] = id
    runs[#runs + 1] = run
  else
    lapsed[#lapsed + 1] = id
  end
end
return {1, live, lapsed, runs}
