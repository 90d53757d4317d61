-- a module returning nothing
X_FROM_RETNOTHING = (X_FROM_RETNOTHING or 0) + 1
