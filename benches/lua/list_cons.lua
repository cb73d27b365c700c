-- Issue #16's list workload for Lua 5.4 with cons cells instead of tables used as arrays:
-- the same algorithm as programs/list_map_filter_sum.lisp, a cell being the two-slot
-- table {car, cdr} and nil the empty list. Build n ints by pushing, reverse, map x*2 (in
-- order, with a tail pointer, as mapcar does), push the evens, reverse, sum.
-- The chunk returns the function; benches/benches/instructions.rs loads it through mlua:
--   lua5.4 -e 'print(dofile("benches/lua/list_cons.lua")(10000))'   --> 99990000
local function reverse(l)
  local r = nil
  while l do r = {l[1], r}; l = l[2] end
  return r
end
local function mapcar(f, l)
  local head, tail = nil, nil
  while l do
    local cell = {f(l[1]), nil}
    if tail then tail[2] = cell else head = cell end
    tail = cell
    l = l[2]
  end
  return head
end
return function(n)
  local xs = nil
  for i = 0, n - 1 do xs = {i, xs} end
  xs = reverse(xs)
  local doubled = mapcar(function(x) return x * 2 end, xs)
  local evens = nil
  local l = doubled
  while l do
    local x = l[1]
    if x % 2 == 0 then evens = {x, evens} end
    l = l[2]
  end
  local total = 0
  l = reverse(evens)
  while l do total = total + l[1]; l = l[2] end
  return total
end
