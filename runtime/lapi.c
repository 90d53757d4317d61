/* lapi.c -- placeholder, being written */
