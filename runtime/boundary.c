/* boundary.c -- placeholder, being written */
