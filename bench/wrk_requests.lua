-- wrk script for bench/http_bench.py's check of its Python client against wrk: one request shape
-- from the environment (WRK_METHOD, WRK_PATH, WRK_HEADERS: "Name: value" lines, WRK_BODY); "{n}" in
-- the body counts up from WRK_START (each tap a new hand: the count moves on when a tap is answered,
-- as wrk may build a request more than once), "{w}" cycles through WRK_WINNERS.
-- Prints one JSON line when done: requests, median and p99 latency (microseconds), errors.
local method = os.getenv("WRK_METHOD") or "GET"
local path = os.getenv("WRK_PATH") or "/"
local body_template = os.getenv("WRK_BODY") or ""
local n = tonumber(os.getenv("WRK_START") or "1")
local winners = {}
for w in string.gmatch(os.getenv("WRK_WINNERS") or "1", "[^,]+") do
  table.insert(winners, w)
end
local headers = {}
for line in string.gmatch(os.getenv("WRK_HEADERS") or "", "[^\n]+") do
  local name, value = line:match("^([^:]+):%s*(.*)$")
  if name then
    headers[name] = value
  end
end

request = function()
  local body = nil
  if method == "POST" then
    local w = winners[(n % #winners) + 1]
    body = (body_template:gsub("{n}", tostring(n)))
    body = (body:gsub("{w}", w))
  end
  return wrk.format(method, path, headers, body)
end

-- WRK_DELAY_MS: a pause before each request (to pace wrk like a slower client).
local pause = tonumber(os.getenv("WRK_DELAY_MS") or "0")
if pause > 0 then
  delay = function()
    return pause
  end
end

-- The first refused answer, kept in the thread's state; done() runs in the main state and asks it.
first_error = ""
response = function(status, headers, body)
  if status < 300 then
    n = n + 1
  end
  if status >= 400 and first_error == "" then
    local text = string.sub(body or "", 1, 300):gsub("[^%w%s%.,:;!?()/-]", " "):gsub("%s+", " ")
    first_error = string.format("%d %s", status, text)
  end
end

local threads = {}
setup = function(thread)
  table.insert(threads, thread)
end

done = function(summary, latency, requests)
  local first_error = ""
  for _, thread in ipairs(threads) do
    first_error = thread:get("first_error") or ""
  end
  io.write(string.format(
    '{"requests": %d, "p50_us": %d, "p99_us": %d, "status_errors": %d, "connect_errors": %d, "read_errors": %d, "write_errors": %d, "timeouts": %d, "first_error": "%s"}\n',
    summary.requests, latency:percentile(50), latency:percentile(99), summary.errors.status,
    summary.errors.connect, summary.errors.read, summary.errors.write, summary.errors.timeout, first_error))
end
