error("the very first statement fails")
