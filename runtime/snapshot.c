/* snapshot.c -- placeholder, being written */
