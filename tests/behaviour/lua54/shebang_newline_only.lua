#!/usr/bin/env lua
