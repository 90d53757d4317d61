print("init file ran", arg and arg[0])
