local epoch = redis.call('HGET', KEYS[1], 'epoch')
if not epoch then
  redis.call('DEL', KEYS[2])
  redis.call('HSET', KEYS[1], 'epoch', ARGV[1], 'seq', ARGV[2])
  redis.call('PEXPIRE', KEYS[1], ARGV[3])
  return 1
end
if epoch == ARGV[1] then
  if tonumber(redis.call('HGET', KEYS[1], 'seq')) < tonumber(ARGV[2]) then
    redis.call('HSET', KEYS[1], 'seq', ARGV[2])
  end
  redis.call('PEXPIRE', KEYS[1], ARGV[3])
  return 0
end
return 2
