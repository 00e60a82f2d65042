-- wrk script: one conversation's turns (issue 38): /turn-ended and /decide
-- in turn, on the conversation named by BENCH_CONVERSATION.
local id = os.getenv("BENCH_CONVERSATION")
local counter = 0
wrk.method = "POST"
wrk.headers["Content-Type"] = "application/json"

request = function()
  counter = counter + 1
  local path = (counter % 2 == 0) and "/turn-ended" or "/decide"
  return wrk.format(nil, path, nil, string.format('{"conversation_id":"%s"}', id))
end

done = function(summary, latency, requests)
  io.write(string.format("RESULT req_per_s=%.0f p50_ms=%.2f p99_ms=%.2f errors=%d\n",
    summary.requests / (summary.duration / 1e6), latency:percentile(50) / 1000, latency:percentile(99) / 1000,
    summary.errors.status + summary.errors.connect + summary.errors.read + summary.errors.write + summary.errors.timeout))
end
