local prefix = ARGV[1] .. '|'
for _, field in ipairs(redis.call('HKEYS', KEYS[1])) do
  if field ~= ARGV[2] and string.sub(field, 1, #prefix) == prefix then redis.call('HDEL', KEYS[1], field) end
end
if tonumber(ARGV[3]) > 0 then
  redis.call('HSET', KEYS[1], ARGV[2], ARGV[3])
  redis.call('PEXPIRE', KEYS[1], ARGV[4])
else
  redis.call('HDEL', KEYS[1], ARGV[2])
end
return 1
