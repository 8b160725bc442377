redis.call('SADD', KEYS[1], ARGV[1])
return redis.call('PEXPIRE', KEYS[1], ARGV[2])
