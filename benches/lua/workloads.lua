-- Issue #16's workloads for a stand-alone Lua 5.4 (Debian's /usr/bin/lua5.4), the same
-- algorithms as src/workloads.rs's CHUNK: `lua5.4 benches/lua/workloads.lua NAME TIMES`
-- runs workload NAME TIMES times (default 1) and prints its answer. Callgrind cannot
-- toggle on a Lua function, so one warm run's instructions are those of TIMES=2 minus
-- those of TIMES=1 (benches/callgrind.sh does this).
local function fib(n) if n < 2 then return n end return fib(n-1) + fib(n-2) end
local function loop_sum(n) local s = 0 for i = 0, n - 1 do s = s + i end return s end
local function map(t, f) local r = {} for i = 1, #t do r[i] = f(t[i]) end return r end
local function filter(t, f) local r = {} for i = 1, #t do if f(t[i]) then r[#r+1] = t[i] end end return r end
local function list(n)
  local xs = {}
  for i = 0, n - 1 do xs[#xs+1] = i end
  local ys = filter(map(xs, function(x) return x * 2 end), function(x) return x % 2 == 0 end)
  local total = 0
  for i = 1, #ys do total = total + ys[i] end
  return total
end
-- The list workload done with cons cells, as ptc does it: lua/list_cons.lua (the same
-- file the mlua harness, benches/instructions.rs, loads), found beside this script.
local list_cons = dofile((arg[0]:match("^(.*/)") or "") .. "list_cons.lua")
local function closures(n)
  local fs = {}
  for i = 0, n - 1 do fs[#fs+1] = function(x) return x + i end end
  local total = 0
  for i = 1, #fs do total = total + fs[i](1) end
  return total
end
local function plist(rounds, entries)
  local t, keys = {}, {}
  for i = 0, entries - 1 do keys[#keys+1] = "k" .. i; t["k" .. i] = i end
  local total = 0
  for r = 1, rounds do
    for j = 1, #keys do total = total + t[keys[j]] end
  end
  return total
end
local function build(n)
  local s = ""
  for i = 0, n - 1 do s = s .. "line " .. tostring(i) .. ": lorem ipsum dolor sit amet, consectetur\n" end
  local parts = {}
  for line in string.gmatch(s, "([^\n]*)\n") do parts[#parts+1] = line end
  parts[#parts+1] = ""
  return #string.upper(table.concat(parts, ","))
end
local cold_source = [[local config = { name = "job", count = 2 }
local items = { "ab", "c", "de" }
local out = ""
for _, x in ipairs(items) do
  if #x == 2 then
    out = out .. x .. tostring(config.count)
  end
end
return #out]]
local function cold() return load(cold_source)() end

local cases = {
  fib = function() return fib(25) end,
  loop_sum = function() return loop_sum(1000000) end,
  list = function() return list(10000) end,
  list_cons = function() return list_cons(10000) end,
  closures = function() return closures(10000) end,
  plist = function() return plist(2000, 50) end,
  build = function() return build(2500) end,
  cold = cold,
  none = function() return 0 end,
}
local case = cases[arg[1] or "none"] or error("unknown workload " .. tostring(arg[1]))
local first = case()
local best = math.huge
for _ = 2, tonumber(arg[2] or "1") do
  local started = os.clock()
  assert(case() == first)
  best = math.min(best, os.clock() - started)
end
if best < math.huge then print(first, string.format("best %.1f us", best * 1e6)) else print(first) end
