/* csv.c -- placeholder, being written */
