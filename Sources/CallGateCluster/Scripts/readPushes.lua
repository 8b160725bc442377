local epoch = redis.call('HGET', KEYS[1], 'epoch')
local seq = 0
if epoch then
  seq = redis.call('HGET', KEYS[1], 'seq')
else
  epoch = ARGV[1]
  redis.call('DEL', KEYS[2])
  redis.call('HSET', KEYS[1], 'epoch', epoch, 'seq', 0)
end
redis.call('PEXPIRE', KEYS[1], ARGV[2])
local out = {epoch, tostring(seq)}
if ARGV[3] ~= epoch or tonumber(ARGV[5]) == 0 then return out end
for _, entry in ipairs(redis.call('XRANGE', KEYS[2], ARGV[4], '+', 'COUNT', ARGV[5])) do
  out[#out + 1] = entry[2][2]
end
return out
