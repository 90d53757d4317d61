/* clock.c -- placeholder, being written */
