-- module() with a dotted name: the tables on the way are made.
module("outer.inner.leaf", package.seeall)
value = "leaf value"
function where() return _NAME, _PACKAGE end
