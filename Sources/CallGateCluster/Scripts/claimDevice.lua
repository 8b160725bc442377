local others = 0
for i = 5, #ARGV do
  local count = tonumber(redis.call('HGET', KEYS[1], ARGV[i]) or '0')
  if count and count > 0 then others = others + count end
end
if others + tonumber(ARGV[2]) > tonumber(ARGV[3]) then return {0, others} end
redis.call('HSET', KEYS[1], ARGV[1], ARGV[2])
redis.call('PEXPIRE', KEYS[1], ARGV[4])
return {1}
