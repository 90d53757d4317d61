/* report.c -- placeholder, being written */
