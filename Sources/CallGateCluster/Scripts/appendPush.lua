local epoch = redis.call('HGET', KEYS[1], 'epoch')
if not epoch then
  epoch = ARGV[1]
  redis.call('DEL', KEYS[2])
  redis.call('HSET', KEYS[1], 'epoch', epoch, 'seq', 0)
end
local seq = redis.call('HINCRBY', KEYS[1], 'seq', 1)
redis.call('PEXPIRE', KEYS[1], ARGV[2])
local message = ARGV[6] .. epoch .. ' ' .. string.format('%d', seq) .. ARGV[7]
redis.call('XADD', KEYS[2], 'MAXLEN', ARGV[3], string.format('%d-0', seq), 'm', message)
redis.call('PEXPIRE', KEYS[2], ARGV[4])
redis.call('PUBLISH', ARGV[5], message)
return seq
