for i = 1, #KEYS do
  local current = redis.call('GET', KEYS[i])
  if current == ARGV[i + 1] then redis.call('PEXPIRE', KEYS[i], ARGV[1])
  elseif not current then redis.call('SET', KEYS[i], ARGV[i + 1], 'PX', ARGV[1]) end
end
return #KEYS
