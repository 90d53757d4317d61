/* loaders.c -- placeholder, being written */
