-- A label that ends the MAIN chunk, with a local jumped over.
print("start")
local skip = true
if skip then goto finish end
local unused = "never"
print(unused)
::finish::
