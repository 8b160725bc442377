local current = redis.call('GET', KEYS[1])
if current and string.sub(current, 1, #ARGV[1]) ~= ARGV[1] and string.sub(current, 1, #ARGV[2]) ~= ARGV[2] then
  return 0
end
redis.call('SET', KEYS[1], ARGV[3], 'PX', ARGV[4])
return 1
