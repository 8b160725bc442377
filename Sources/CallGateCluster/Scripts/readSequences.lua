local out = {}
for i = 1, #KEYS do
  local values = redis.call('HMGET', KEYS[i], 'epoch', 'seq')
  if values[1] then
    redis.call('PEXPIRE', KEYS[i], ARGV[1])
    out[#out + 1] = values[1]
    out[#out + 1] = values[2]
  else
    out[#out + 1] = ''
    out[#out + 1] = '0'
  end
end
return out
