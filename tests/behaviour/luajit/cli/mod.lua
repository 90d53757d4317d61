print("mod loaded", ...)
return {answer = 42}
