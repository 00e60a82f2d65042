-- wrk script for the yardstick: one single-row UPDATE per request.
local counter = 0
wrk.method = "POST"
wrk.headers["Content-Type"] = "application/json"

request = function()
  counter = counter + 1
  return wrk.format(nil, "/bump", nil, string.format('{"id":%d}', counter * 7919 % 1000 + 1))
end

done = function(summary, latency, requests)
  io.write(string.format("RESULT req_per_s=%.0f p50_ms=%.2f p99_ms=%.2f errors=%d\n",
    summary.requests / (summary.duration / 1e6), latency:percentile(50) / 1000, latency:percentile(99) / 1000,
    summary.errors.status + summary.errors.connect + summary.errors.read + summary.errors.write + summary.errors.timeout))
end
