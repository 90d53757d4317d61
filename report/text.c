/* text.c -- placeholder, being written */
