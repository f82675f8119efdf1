-- wrk script for bench/serve_load.sh: rotates through realistic queries.
-- MODE (environment) picks the path: keyword (fts_only=1) or hybrid. With
-- RATE and CONNS set, each connection waits between requests (exponential
-- think time) so the whole load offers about RATE requests per second; wrk
-- measures latency from send to answer, so the think time is not counted.
local queries = {
  "checkpoint restore", "fsdp sharding", "float8 training throughput", "loss spike", "tokenizer speed",
  "data loader stall", "tensor parallel", "mfu h100", "learning rate schedule", "gradient accumulation",
  "activation checkpointing memory", "eval harness", "nccl timeout", "mixed precision bf16", "optimizer state",
  "pipeline parallel bubble", "profiling trace", "context parallel", "dataset shuffle seed", "torch compile",
}
local mode = os.getenv("MODE") or "keyword"
local rate = tonumber(os.getenv("RATE") or "0")
local conns = tonumber(os.getenv("CONNS") or "64")
local counter = 0
local thread_id = 0

function setup(thread)
  thread:set("id", thread_id)
  thread_id = thread_id + 1
end

function init(args)
  counter = id * 7
  math.randomseed(id * 7919 + os.time())
end

function delay()
  if rate <= 0 then return 0 end
  local mean = conns * 1000 / rate
  return math.floor(math.min(-math.log(1 - math.random()), 5) * mean)
end

function request()
  counter = counter + 1
  local q = queries[(counter % #queries) + 1]:gsub(" ", "+")
  local path = "/api/search?k=20&q=" .. q
  if mode == "keyword" then path = path .. "&fts_only=1" end
  return wrk.format("GET", path)
end

function done(summary, latency, requests)
  local errors = summary.errors.connect + summary.errors.read + summary.errors.write + summary.errors.status +
                 summary.errors.timeout
  io.write(string.format("RESULT mode=%s rate=%s requests=%d rps=%.1f p50_ms=%.2f p99_ms=%.2f max_ms=%.2f errors=%d\n",
                         mode, rate > 0 and tostring(rate) or "max", summary.requests,
                         summary.requests / (summary.duration / 1e6), latency:percentile(50) / 1000,
                         latency:percentile(99) / 1000, latency.max / 1000, errors))
end
