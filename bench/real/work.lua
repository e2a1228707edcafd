-- bench/real/work.lua - the Lua workload of bench/real.sh: CPU-bound interpreter work.
--
-- lua work.lua ROUNDS [FIB]: a recursive Fibonacci (calls between Lua functions, run by
-- the virtual machine), then ROUNDS rounds of string and table work (formatting,
-- sorting with the C comparison functions, concatenation, pattern matching), which is
-- where the interpreter's C functions are called most.  Prints one checksum line, so
-- that a traced run can be checked against the uninstrumented one.
local function fib(n)
	if n < 2 then return n end
	return fib(n - 1) + fib(n - 2)
end

local rounds = tonumber(arg[1]) or 6
local acc = fib(tonumber(arg[2]) or 30)
for r = 1, rounds do
	local t = {}
	for i = 1, 20000 do
		t[i] = string.format("%05d:%s", (i * 7919 + r) % 20000, string.rep("x", i % 7))
	end
	table.sort(t)
	local s = table.concat(t, ",", 1, 1000)
	local words = {}
	for w in s:gmatch("[^,]+") do words[#words + 1] = w:upper() end
	acc = acc + #s + #words
end
print("result", acc)
