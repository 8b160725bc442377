local current = redis.call('GET', KEYS[1])
if current and string.sub(current, 1, #ARGV[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end
return 0
