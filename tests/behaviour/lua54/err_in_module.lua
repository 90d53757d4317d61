-- Errors raised in required modules.
local errmod = require("errmod")
print(pcall(errmod.raise, "a"))
print(pcall(errmod.raise2, "b"))
print(pcall(function() errmod.raise2("c") end))
print(pcall(errmod.tail, "d"))
print(pcall(require, "badmod"))
print(package.loaded.badmod)
-- and uncaught: a top-level error in a required module
local bad = require("badmod")
