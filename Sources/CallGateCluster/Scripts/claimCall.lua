if redis.call('HSETNX', KEYS[1], 'owner', ARGV[1]) == 1 then
  redis.call('PEXPIRE', KEYS[1], ARGV[2])
  return ARGV[1]
end
return redis.call('HGET', KEYS[1], 'owner')
