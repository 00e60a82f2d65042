-- wrk script: the hot-path mix an agent makes, spread over many conversations.
-- Each request is one of /usage, /turn-ended, /decide, in equal shares.
local conversations = tonumber(os.getenv("BENCH_CONVERSATIONS") or "1000")
local counter = 0

wrk.method = "POST"
wrk.headers["Content-Type"] = "application/json"
-- BENCH_PREFER=return=minimal: the reports answer 204 and no body (RFC 7240).
if os.getenv("BENCH_PREFER") then
  wrk.headers["Prefer"] = os.getenv("BENCH_PREFER")
end

request = function()
  counter = counter + 1
  local id = "bench-" .. (counter * 7919 % conversations)
  local kind = counter % 3
  if kind == 0 then
    local used = (counter * 104729) % 190000
    return wrk.format(nil, "/usage", nil,
      string.format('{"conversation_id":"%s","used":%d,"size":200000,"input":%d,"cached_read":%d,"output":700}',
        id, used, used, math.floor(used / 2)))
  elseif kind == 1 then
    return wrk.format(nil, "/turn-ended", nil,
      string.format('{"conversation_id":"%s","run_completed":%s}', id, (counter % 5 == 0) and "false" or "true"))
  else
    return wrk.format(nil, "/decide", nil, string.format('{"conversation_id":"%s"}', id))
  end
end

local statuses = {}
response = function(status)
  statuses[status] = (statuses[status] or 0) + 1
end

done = function(summary, latency, requests)
  io.write(string.format("RESULT req_per_s=%.0f p50_ms=%.2f p99_ms=%.2f errors=%d\n",
    summary.requests / (summary.duration / 1e6), latency:percentile(50) / 1000, latency:percentile(99) / 1000,
    summary.errors.status + summary.errors.connect + summary.errors.read + summary.errors.write + summary.errors.timeout))
end
